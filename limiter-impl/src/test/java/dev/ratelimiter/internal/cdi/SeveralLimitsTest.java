package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimitExceededException;
import dev.ratelimiter.RateLimitKeyMissingException;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.internal.cdi.call.AppliedLimits;
import dev.ratelimiter.internal.cdi.call.KeyResolverInvoker;
import dev.ratelimiter.internal.cdi.call.RequestIdentity;
import dev.ratelimiter.testing.LogCapture;
import jakarta.enterprise.context.control.RequestContextController;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.logging.Level;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Several {@code @RateLimited} on one method and keys from resolvers, in a real CDI container (Weld SE, which
 * Payara and Open Liberty run): decided in declaration order, the first refusal stops the rest, a missing key
 * counts nowhere.
 */
class SeveralLimitsTest {

    private static final Map<String, String> PROPERTIES = Map.of(
            "ratelimiter.buckets.per-address.limit", "4",
            "ratelimiter.buckets.per-address.window", "PT15M",
            "ratelimiter.buckets.per-account.limit", "2",
            "ratelimiter.buckets.per-account.window", "PT15M",
            "ratelimiter.buckets.per-tenant.limit", "2",
            "ratelimiter.buckets.per-tenant.window", "PT1M");

    private CdiContainer cdi;
    private SeveralLimitsService service;
    private RequestContextController request;

    @BeforeEach
    void start() {
        cdi = CdiContainer.start(PROPERTIES, SeveralLimitsService.class, TenantHeaderKeys.class, ThrowingKeys.class,
                FirstArgumentKeys.class);
        service = cdi.select(SeveralLimitsService.class);
        request = cdi.select(RequestContextController.class);
    }

    @AfterEach
    void stop() {
        cdi.close();
    }

    /** Runs {@code call} in a request from {@code address} with these headers, as the JAX-RS filter leaves it. */
    private <T> Outcome<T> inRequest(String address, Map<String, String> headers, Supplier<T> call) {
        request.activate();
        try {
            cdi.select(RequestIdentity.class).resolve(null, address, new KeyResolverInvokerTest.HeaderAttributes(headers));
            try {
                return new Outcome<>(call.get(), null, List.copyOf(cdi.select(RequestIdentity.class).applied().all()));
            } catch (RuntimeException e) {
                return new Outcome<>(null, e, List.copyOf(cdi.select(RequestIdentity.class).applied().all()));
            }
        } finally {
            request.deactivate();
        }
    }

    /** What a call returned or threw, and the verdicts the response headers would list. */
    private record Outcome<T>(T value, RuntimeException failure, List<AppliedLimits.Applied> applied) {

        /** {@code bucket=remaining} per verdict, in the order decided. */
        List<String> remaining() {
            return applied.stream().map(a -> a.bucket().name() + "=" + a.verdict().remaining()).toList();
        }
    }

    private static final AtomicInteger NEXT_ADDRESS = new AtomicInteger(1);

    /** An address no other call of this class uses (TEST-NET-3, RFC 5737). */
    private static String address() {
        int n = NEXT_ADDRESS.getAndIncrement();
        return "203.0." + (113 + n / 250) + "." + (1 + n % 250);
    }

    @Test
    @DisplayName("both buckets count in declaration order; the account's refusal keeps the address's count, and the headers list both")
    void decidedInOrder() {
        String address = address();
        String account = "mallory-" + UUID.randomUUID();

        Outcome<String> first = inRequest(address, Map.of(), () -> service.login(account));
        Outcome<String> second = inRequest(address, Map.of(), () -> service.login(account));
        Outcome<String> third = inRequest(address, Map.of(), () -> service.login(account));

        assertThat(first.value()).isEqualTo("ok");
        assertThat(first.remaining()).containsExactly("per-address=3", "per-account=1");
        assertThat(second.remaining()).containsExactly("per-address=2", "per-account=0");
        assertThat(third.failure()).isInstanceOfSatisfying(RateLimitExceededException.class,
                e -> assertThat(e.bucket().name()).isEqualTo("per-account"));
        assertThat(third.remaining()).as("the refusing bucket is listed after the one that allowed")
                .containsExactly("per-address=1", "per-account=0");
        assertThat(service.runs()).isEqualTo(2);
    }

    @Test
    @DisplayName("the address's refusal stops the call before the account counts; Retry-After is the address bucket's")
    void firstRefusalStopsTheRest() {
        String address = address();
        for (int i = 0; i < 4; i++) {
            String account = "spray-" + i + "-" + UUID.randomUUID();
            assertThat(inRequest(address, Map.of(), () -> service.login(account)).value()).isEqualTo("ok");
        }
        String victim = "victim-" + UUID.randomUUID();

        Outcome<String> refused = inRequest(address, Map.of(), () -> service.login(victim));

        assertThat(refused.failure()).isInstanceOfSatisfying(RateLimitExceededException.class, e -> {
            assertThat(e.bucket().name()).isEqualTo("per-address");
            assertThat(e.verdict().retryAfterSeconds()).isEqualTo(900);
        });
        assertThat(refused.remaining()).as("only the bucket decided").containsExactly("per-address=0");
        assertThat(inRequest(address(), Map.of(), () -> service.login(victim)).remaining())
                .as("the victim's account was not counted by the refused call")
                .containsExactly("per-address=3", "per-account=1");
    }

    @Test
    @DisplayName("a resolver keys the bucket by tenant header, normalized as it asks, and hashed: two per tenant across addresses")
    void keyedByResolver() {
        String tenant = "Acme-" + UUID.randomUUID();

        assertThat(inRequest(address(), Map.of("X-Tenant", tenant), service::report).remaining())
                .containsExactly("per-tenant=1");
        assertThat(inRequest(address(), Map.of("x-tenant", " " + tenant.toUpperCase()), service::report)
                .remaining()).containsExactly("per-tenant=0");
        assertThat(inRequest(address(), Map.of("X-Tenant", tenant.toLowerCase()), service::report).failure())
                .isInstanceOf(RateLimitExceededException.class);
        assertThat(inRequest(address(), Map.of("X-Tenant", "other-" + tenant), service::report).value())
                .isEqualTo("report");
    }

    @Test
    @DisplayName("a resolver returning null without a fallback: 400's exception, nothing counted, logged once naming the resolver")
    void resolverReturnsNull() {
        String address = address();
        try (LogCapture log = LogCapture.of(KeyResolverInvoker.class)) {
            for (int i = 0; i < 3; i++) {
                Outcome<String> outcome = inRequest(address, Map.of(), service::report);
                assertThat(outcome.failure()).isInstanceOfSatisfying(RateLimitKeyMissingException.class,
                        e -> assertThat(e.bucket()).isEqualTo("per-tenant"));
                assertThat(outcome.applied()).as("nothing decided").isEmpty();
            }
            assertThat(log.messages(Level.WARNING)).singleElement().asString()
                    .contains(TenantHeaderKeys.class.getName(), "returned null", "\"per-tenant\"");
        }
        assertThat(service.runs()).isZero();
    }

    @Test
    @DisplayName("a resolver returning null with fallback = CLIENT_ADDRESS: keyed by the address; with the header, by tenant")
    void resolverFallsBack() {
        String address = address();
        for (int i = 0; i < 2; i++) {
            assertThat(inRequest(address, Map.of(), service::reportOrAddress).value()).isEqualTo("report");
        }
        assertThat(inRequest(address, Map.of(), service::reportOrAddress).failure())
                .isInstanceOf(RateLimitExceededException.class);
        assertThat(inRequest(address(), Map.of(), service::reportOrAddress).value()).as("another address")
                .isEqualTo("report");
        assertThat(inRequest(address, Map.of("X-Tenant", "t-" + UUID.randomUUID()), service::reportOrAddress)
                .value()).as("a tenant from the exhausted address").isEqualTo("report");
    }

    @Test
    @DisplayName("a resolver that throws: the call fails with a missing key before any bucket counts, logged once without the key or its message")
    void resolverThrows() {
        String address = address();
        try (LogCapture log = LogCapture.of(KeyResolverInvoker.class)) {
            for (int i = 0; i < 2; i++) {
                Outcome<String> outcome = inRequest(address, Map.of("X-Api-Key", "sk-live-secret"),
                        service::throwing);
                assertThat(outcome.failure()).isInstanceOf(RateLimitKeyMissingException.class);
                assertThat(outcome.applied()).as("the address bucket, declared first, did not count").isEmpty();
            }
            assertThat(log.messages(Level.WARNING)).singleElement().asString()
                    .contains(ThrowingKeys.class.getName(), "threw java.lang.IllegalArgumentException")
                    .doesNotContain("sk-live-secret");
        }
        assertThat(service.runs()).isZero();
    }

    @Test
    @DisplayName("a CompletionStage method whose key is missing returns the refusal as a failed stage")
    void missingKeyAsFailedStage() {
        Outcome<Throwable> outcome = inRequest(address(), Map.of(), () -> service.reportLater()
                .handle((value, failure) -> failure).toCompletableFuture().join());

        assertThat(outcome.value()).isInstanceOf(RateLimitKeyMissingException.class);
        assertThat(service.runs()).isZero();
    }

    @Test
    @DisplayName("key = PRINCIPAL on an anonymous request without a fallback is a missing key")
    void principalRequired() {
        assertThat(inRequest(address(), Map.of(), service::mine).failure())
                .isInstanceOf(RateLimitKeyMissingException.class);
    }

    @Test
    @DisplayName("outside a request a resolver keys by the method's arguments")
    void resolverOutsideRequest() {
        String tenant = "batch-" + UUID.randomUUID();
        assertThat(service.job(tenant)).isEqualTo("done");
        assertThat(service.job(tenant)).isEqualTo("done");
        assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.job(tenant));
        assertThatThrownBy(() -> service.job(null)).as("a null argument is no key")
                .isInstanceOf(RateLimitKeyMissingException.class);
    }
}
