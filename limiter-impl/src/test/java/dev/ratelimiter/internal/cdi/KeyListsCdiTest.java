package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimitExceededException;
import dev.ratelimiter.RateLimits;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.contract.MapStore;
import dev.ratelimiter.contract.MapStoreProvider;
import dev.ratelimiter.internal.cdi.call.RequestAttributes;
import dev.ratelimiter.internal.cdi.call.RequestIdentity;
import dev.ratelimiter.internal.core.chain.LimiterAssembly;
import dev.ratelimiter.testing.LogCapture;
import jakarta.enterprise.context.control.RequestContextController;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Allow and deny lists through the CDI layer (Weld SE) on the test store ({@code ratelimiter.backend=test-map}),
 * whose calls are counted: a listed denial asks no store, an allowed key is counted but never refused, and the lists
 * change with a reload (docs/guide.md#allow-and-deny-lists).
 */
class KeyListsCdiTest {

    @TempDir
    Path directory;
    private Path file;
    private CdiContainer cdi;

    @AfterEach
    void stop() {
        if (cdi != null) {
            cdi.close();
        }
    }

    /** Per address (3 per 15 min) and per account (2 per 15 min), {@link SeveralLimitsService#login}. */
    private void start(String reloadFile) throws IOException {
        file = directory.resolve("limits.properties");
        Files.writeString(file, reloadFile);
        Map<String, String> properties = SeveralLimitsService.buckets();
        properties.putAll(Map.of(
                "ratelimiter.backend", MapStoreProvider.NAME,
                "ratelimiter.key-secret", "a-test-secret",
                "ratelimiter.reload.file", file.toString()));
        cdi = CdiContainer.start(properties, beans(CreatedStores.class, DenialRecorder.class));
    }

    /** The service, its resolvers and these. */
    private static Class<?>[] beans(Class<?>... more) {
        List<Class<?>> beans = new ArrayList<>(List.of(more));
        beans.add(SeveralLimitsService.class);
        beans.addAll(List.of(SeveralLimitsService.RESOLVERS));
        return beans.toArray(Class<?>[]::new);
    }

    private MapStore store() {
        return cdi.select(CreatedStores.class).stores().get(0);
    }

    /** One login from the address, as the JAX-RS filter leaves a request: what it got, and its verdicts. */
    private Login login(String address, String account) {
        RequestContextController request = cdi.select(RequestContextController.class);
        long before = store().calls();
        request.activate();
        try {
            cdi.select(RequestIdentity.class).resolve(null, address, RequestAttributes.NONE);
            String outcome;
            Verdict refusal = null;
            try {
                outcome = cdi.select(SeveralLimitsService.class).login(account);
            } catch (RateLimitExceededException e) {
                outcome = "refused by " + e.bucket().name();
                refusal = e.verdict();
            }
            List<Verdict> verdicts = new ArrayList<>();
            cdi.select(RequestIdentity.class).applied().all().forEach(applied -> verdicts.add(applied.verdict()));
            return new Login(outcome, refusal, verdicts, store().calls() - before);
        } finally {
            request.deactivate();
        }
    }

    private record Login(String outcome, Verdict refusal, List<Verdict> verdicts, long storeCalls) {
    }

    @Test
    @DisplayName("an address in a denied range is refused by its bucket without a store call, with limit 0 and the bucket's longest window; no denial event")
    void deniedAddressCostsNoStoreCall() throws IOException {
        start("ratelimiter.buckets.per-address.deny=203.0.113.0/24\n");
        for (int i = 0; i < 3; i++) {
            Login login = login("203.0.113.9", "alice");
            assertThat(login.outcome()).isEqualTo("refused by per-address");
            assertThat(login.storeCalls()).as("attempt %d", i + 1).isZero();
            assertThat(login.refusal().isDenyListed()).isTrue();
            assertThat(login.refusal().limit()).isZero();
            assertThat(login.refusal().retryAfterSeconds()).isEqualTo(900);
        }
        assertThat(cdi.select(DenialRecorder.class).denials()).isEmpty();
        Login other = login("203.0.114.9", "alice");
        assertThat(other.outcome()).as("an address outside the range").isEqualTo("ok");
        assertThat(other.storeCalls()).isEqualTo(1);
    }

    @Test
    @DisplayName("a denied account on the second bucket: the first is counted in the one store call, the second refused without one")
    void deniedOnTheSecondBucket() throws IOException {
        start("ratelimiter.buckets.per-account.deny=Mallory\n");
        Login login = login("198.51.100.4", "MALLORY ");
        assertThat(login.outcome()).as("the account's key is normalized as the list's").isEqualTo("refused by per-account");
        assertThat(login.storeCalls()).isEqualTo(1);
        assertThat(login.verdicts()).extracting(Verdict::remaining).as("per-address counted it").startsWith(2L);
        assertThat(login("198.51.100.4", "alice").verdicts()).extracting(Verdict::remaining)
                .as("the address's count goes on from there").startsWith(1L);
    }

    @Test
    @DisplayName("an allowed address is counted in the store as any other and never refused: remaining 0 past the limit; the most specific entry wins")
    void allowedAddressCountedNeverRefused() throws IOException {
        start("ratelimiter.buckets.per-address.deny=203.0.113.0/24\n"
                + "ratelimiter.buckets.per-address.allow=203.0.113.7\n");
        for (int i = 1; i <= 5; i++) {
            Login login = login("203.0.113.7", "account-" + i);
            assertThat(login.outcome()).as("login %d", i).isEqualTo("ok");
            // past the limit the store's refusal (or the deny cache's, without a call) stops its batch, so the
            // account is decided in a further call, as after a shadow bucket's (docs/guide.md#several-limits-on-one-method)
            if (i <= 3) {
                assertThat(login.storeCalls()).isEqualTo(1);
            } else {
                assertThat(login.storeCalls()).isBetween(1L, 2L);
            }
            assertThat(login.verdicts().get(0).remaining()).isEqualTo(Math.max(0, 3 - i));
        }
        assertThat(cdi.select(DenialRecorder.class).denials()).isEmpty();
        assertThat(login("203.0.113.8", "bob").outcome()).as("its neighbour is denied")
                .isEqualTo("refused by per-address");
    }

    @Test
    @DisplayName("RateLimits.consume and usage answer a listed key as the interceptor does")
    void facade() throws IOException {
        start("ratelimiter.buckets.per-account.deny=mallory\nratelimiter.buckets.per-account.allow=partner\n");
        RateLimits limits = cdi.select(RateLimits.class);
        long before = store().calls();
        assertThat(limits.consume("per-account", "mallory").isDenyListed()).isTrue();
        assertThat(limits.usage("per-account", "mallory").isDenyListed()).isTrue();
        assertThat(store().calls()).isEqualTo(before);
        for (int i = 0; i < 4; i++) {
            assertThat(limits.consume("per-account", "partner").isAllowed()).isTrue();
        }
        Verdict usage = limits.usage("per-account", "partner");
        assertThat(usage.isAllowed()).isTrue();
        assertThat(usage.remaining()).isZero();
        assertThat(limits.consume("per-account", "carol").isDenyListed()).isFalse();
    }

    @Test
    @DisplayName("a reload changes the lists from the next call; a malformed range is kept out naming the property, the lists in force stay")
    void reloaded() throws IOException {
        start("");
        assertThat(login("203.0.113.9", "alice").outcome()).isEqualTo("ok");

        Files.writeString(file, "ratelimiter.buckets.per-address.deny=203.0.113.0/24\n");
        RateLimits.Reload reload = cdi.select(RateLimits.class).reload();
        assertThat(reload.changed()).containsExactly("per-address");
        assertThat(login("203.0.113.9", "alice").outcome()).isEqualTo("refused by per-address");

        Files.writeString(file, "ratelimiter.buckets.per-address.deny=203.0.113.0/33\n");
        reload = cdi.select(RateLimits.class).reload();
        assertThat(reload.changed()).isEmpty();
        assertThat(reload.rejected()).singleElement().asString()
                .startsWith("ratelimiter.buckets.per-address.deny: '203.0.113.0/33' is not a CIDR range");
        assertThat(login("203.0.113.9", "alice").outcome()).isEqualTo("refused by per-address");

        Files.writeString(file, "");
        assertThat(cdi.select(RateLimits.class).reload().changed()).containsExactly("per-address");
        assertThat(login("203.0.113.9", "alice").outcome()).isEqualTo("ok");
    }

    @Test
    @DisplayName("the startup log names the buckets with lists and counts their entries, never an entry")
    void startupLog() throws IOException {
        try (LogCapture log = LogCapture.of(LimiterAssembly.class)) {
            start("ratelimiter.buckets.per-address.deny=203.0.113.0/24, 198.51.100.9\n"
                    + "ratelimiter.buckets.per-account.allow=partner\n");
            login("192.0.2.1", "alice"); // the chain is built at the first decision
            assertThat(log.messages(Level.INFO)).contains("Rate limiter: buckets with allow or deny lists: "
                    + "per-account (allow 1, deny 0), per-address (allow 0, deny 2)");
            assertThat(String.join("\n", log.messages(Level.INFO))).doesNotContain("203.0.113")
                    .doesNotContain("partner");
        }
    }

    @Test
    @DisplayName("with ratelimiter.enabled=false nothing is refused, a deny list included")
    void killSwitch() {
        Map<String, String> properties = SeveralLimitsService.buckets();
        properties.put("ratelimiter.enabled", "false");
        properties.put("ratelimiter.buckets.per-address.deny", "203.0.113.0/24");
        cdi = CdiContainer.start(properties, beans());
        assertThat(cdi.select(RateLimits.class).consume("per-address", "203.0.113.9").isAllowed()).isTrue();
    }

    @Test
    @DisplayName("a malformed range fails the start naming the property")
    void malformedRangeFailsStart() {
        Map<String, String> properties = SeveralLimitsService.buckets();
        properties.put("ratelimiter.buckets.per-address.allow", "10.0.0.0/8, 2001:db8::/200");
        assertThatThrownBy(() -> CdiContainer.start(properties, beans()))
                .hasStackTraceContaining("ratelimiter.buckets.per-address.allow: '2001:db8::/200' is not a CIDR range");
    }

}
