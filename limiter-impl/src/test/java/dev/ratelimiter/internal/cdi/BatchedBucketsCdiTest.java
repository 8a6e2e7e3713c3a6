package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimitExceededException;
import dev.ratelimiter.contract.MapStore;
import dev.ratelimiter.contract.MapStoreProvider;
import dev.ratelimiter.internal.cdi.call.RequestAttributes;
import dev.ratelimiter.internal.cdi.call.RequestIdentity;
import jakarta.enterprise.context.control.RequestContextController;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A method with two {@code @RateLimited} ({@link SeveralLimitsService#login}: per address, then per account) on the
 * test store ({@code ratelimiter.backend=test-map}): one store call per request, and a second one only after a
 * bucket in shadow mode would have refused (docs/guide.md#several-limits-on-one-method).
 */
class BatchedBucketsCdiTest {

    private CdiContainer cdi;

    @AfterEach
    void stop() {
        cdi.close();
    }

    private void start(Map<String, String> extra) {
        Map<String, String> properties = SeveralLimitsService.buckets();
        properties.put("ratelimiter.backend", MapStoreProvider.NAME);
        properties.put("ratelimiter.key-secret", "a-test-secret");
        properties.putAll(extra);
        List<Class<?>> beans = new java.util.ArrayList<>(List.of(CreatedStores.class, SeveralLimitsService.class));
        beans.addAll(List.of(SeveralLimitsService.RESOLVERS));
        cdi = CdiContainer.start(properties, beans.toArray(Class<?>[]::new));
    }

    private MapStore store() {
        List<MapStore> stores = cdi.select(CreatedStores.class).stores();
        assertThat(stores).hasSize(1);
        return stores.get(0);
    }

    /** Runs a login from one address in a request, as the JAX-RS filter leaves it; returns the store's calls. */
    private long storeCallsOf(Supplier<String> call, List<String> outcomes) {
        RequestContextController request = cdi.select(RequestContextController.class);
        long before = store().calls();
        request.activate();
        try {
            cdi.select(RequestIdentity.class).resolve(null, "203.0.113.7", RequestAttributes.NONE);
            try {
                outcomes.add(call.get());
            } catch (RateLimitExceededException e) {
                outcomes.add("refused by " + e.bucket().name());
            }
        } finally {
            request.deactivate();
        }
        return store().calls() - before;
    }

    @Test
    @DisplayName("two buckets, one store call per request, also for the refused one")
    void oneStoreCallPerRequest() {
        start(Map.of());
        SeveralLimitsService service = cdi.select(SeveralLimitsService.class);
        List<String> outcomes = new java.util.ArrayList<>();

        assertThat(storeCallsOf(() -> service.login("alice"), outcomes)).isEqualTo(1);
        assertThat(storeCallsOf(() -> service.login("alice"), outcomes)).isEqualTo(1);
        assertThat(storeCallsOf(() -> service.login("alice"), outcomes)).isEqualTo(1);
        assertThat(storeCallsOf(() -> service.login("bob"), outcomes)).as("the address refuses first").isEqualTo(1);

        assertThat(outcomes).containsExactly("ok", "ok", "refused by per-account", "refused by per-address");
        assertThat(service.runs()).isEqualTo(2);
    }

    @Test
    @DisplayName("a shadow bucket that would refuse does not stop the next one: a further call decides it")
    void shadowRefusalContinuesInASecondCall() {
        start(Map.of("ratelimiter.buckets.per-address.limit", "1",
                "ratelimiter.buckets.per-address.mode", "shadow"));
        SeveralLimitsService service = cdi.select(SeveralLimitsService.class);
        List<String> outcomes = new java.util.ArrayList<>();

        assertThat(storeCallsOf(() -> service.login("alice"), outcomes)).isEqualTo(1);
        assertThat(storeCallsOf(() -> service.login("alice"), outcomes)).as("the address's would-be refusal, then "
                + "the account").isEqualTo(2);
        assertThat(storeCallsOf(() -> service.login("alice"), outcomes)).as("the address's refusal from memory "
                + "(ratelimiter.deny-cache.max-age), then the account").isEqualTo(1);

        assertThat(outcomes).containsExactly("ok", "ok", "refused by per-account");
    }
}
