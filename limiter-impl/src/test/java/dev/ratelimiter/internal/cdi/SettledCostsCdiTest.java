package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimitCosts;
import dev.ratelimiter.RateLimitExceededException;
import dev.ratelimiter.RateLimited;
import dev.ratelimiter.RateLimits;
import dev.ratelimiter.internal.cdi.call.AppliedLimits;
import dev.ratelimiter.internal.cdi.call.RequestIdentity;
import dev.ratelimiter.internal.jaxrs.GlobalRateLimitFilter;
import dev.ratelimiter.internal.jaxrs.RefusalResponder;
import dev.ratelimiter.internal.jaxrs.SettlementResponseFilter;
import dev.ratelimiter.spi.ConfigurationException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.control.RequestContextController;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.core.MultivaluedHashMap;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Costs settled after the call (docs/guide.md#costs-settled-after-the-call), through the interceptor on the
 * in-memory store: a bucket {@code tokens} of 100 an hour per tenant, each call reserving 1 (or 5) before it runs and
 * settling what it used from the method, a cost resolver or the response header.
 */
class SettledCostsCdiTest {

    private CdiContainer cdi;

    @AfterEach
    void stop() {
        if (cdi != null) {
            cdi.close();
        }
    }

    private SettledCostService start() {
        cdi = CdiContainer.start(new HashMap<>(Map.of(
                "ratelimiter.buckets.tokens.limit", "100",
                "ratelimiter.buckets.tokens.window", "PT1H",
                "ratelimiter.buckets.requests.limit", "50",
                "ratelimiter.buckets.requests.window", "PT1H")),
                SettledCostService.class, SettledCostService.AnswerTokens.class, NestedSettledService.class,
                SettledCostService.SneakyThrowingTokens.class, GlobalRateLimitFilter.class,
                SettlementResponseFilter.class, RefusalResponder.class, ShadowGlobalFilterTest.OneClient.class,
                DenialRecorder.class);
        return cdi.select(SettledCostService.class);
    }

    private long left(String bucket, String tenant) {
        return cdi.select(RateLimits.class).usage(bucket, tenant).remaining();
    }

    private static String tenant() {
        return "tenant-" + UUID.randomUUID();
    }

    @Test
    @DisplayName("from the method: a call reserving 1 and using 30 leaves 70; one using 80 is let in with 70 left "
            + "and overruns by 10, its whole overrun, so the next call is refused")
    void fromTheMethod() {
        SettledCostService service = start();
        String tenant = tenant();
        assertThat(service.complete(tenant, 30)).isEqualTo("ok");
        assertThat(left("tokens", tenant)).isEqualTo(70);
        assertThat(service.complete(tenant, 80)).as("the budget is not spent yet").isEqualTo("ok");
        assertThat(left("tokens", tenant)).isZero();
        assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.complete(tenant, 1))
                .satisfies(e -> assertThat(e.bucket().name()).isEqualTo("tokens"));
    }

    @Test
    @DisplayName("the overrun bound: with 5 of 100 left, 8 calls at once, each reserving 1 and using 30, let in "
            + "exactly 5 (one per token left), and those 5 overrun by their use beyond the reservation; then refused")
    void overrunBound() throws Exception {
        SettledCostService service = start();
        String tenant = tenant();
        service.complete(tenant, 95);
        CountDownLatch decided = new CountDownLatch(8);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger refused = new AtomicInteger();
        ExecutorService callers = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> calls = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                calls.add(callers.submit(() -> {
                    try {
                        return service.held(tenant, 30, decided, release);
                    } catch (RateLimitExceededException e) {
                        refused.incrementAndGet();
                        decided.countDown();
                        return "refused";
                    }
                }));
            }
            assertThat(decided.await(30, TimeUnit.SECONDS)).as("every call let in or refused").isTrue();
            assertThat(refused).as("refused while the 5 let in run").hasValue(3);
            release.countDown();
            for (Future<?> call : calls) {
                call.get(30, TimeUnit.SECONDS);
            }
        } finally {
            callers.shutdownNow();
        }
        assertThat(left("tokens", tenant)).isZero();
        assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.complete(tenant, 0));
    }

    @Test
    @DisplayName("a nested call of the same bucket and key counts nothing again, and the cost it gives goes to the "
            + "outer call, which counted")
    void nestedCallGivesToTheOuter() {
        SettledCostService service = start();
        String tenant = tenant();
        assertThat(service.outer(tenant, 30)).isEqualTo("ok");
        assertThat(left("tokens", tenant)).isEqualTo(70);
    }

    @Test
    @DisplayName("a cost resolver that throws (a checked exception too) never reaches the caller: the result does, "
            + "and the reservation stands")
    void throwingResolver() {
        SettledCostService service = start();
        String tenant = tenant();
        assertThat(service.answerWithBrokenResolver(tenant).tokens()).isEqualTo(50);
        assertThat(left("tokens", tenant)).isEqualTo(98);
    }

    @Test
    @DisplayName("a call that gives no cost keeps its reservation; one that uses 0 gives it all back")
    void reservationStands() {
        SettledCostService service = start();
        String tenant = tenant();
        service.silent(tenant);
        assertThat(left("tokens", tenant)).isEqualTo(95);
        service.complete(tenant, 0);
        assertThat(left("tokens", tenant)).isEqualTo(95);
    }

    @Test
    @DisplayName("a method that gave its cost and then threw is settled at that cost")
    void settledWhenTheMethodThrows() {
        SettledCostService service = start();
        String tenant = tenant();
        assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> service.completeThenFail(tenant, 20));
        assertThat(left("tokens", tenant)).isEqualTo(80);
    }

    @Test
    @DisplayName("from the result, by the cost resolver: a value, a CompletionStage once it completes, a Uni")
    void fromTheResult() throws Exception {
        SettledCostService service = start();
        String tenant = tenant();
        assertThat(service.answer(tenant, 40).tokens()).isEqualTo(40);
        assertThat(left("tokens", tenant)).isEqualTo(60);

        String later = tenant();
        assertThat(service.answerLater(later, 25).toCompletableFuture().get(10, TimeUnit.SECONDS).tokens())
                .isEqualTo(25);
        await().atMost(Duration.ofSeconds(10)).until(() -> left("tokens", later) == 75);

        String uni = tenant();
        assertThat(service.answerUni(uni, 15).await().atMost(Duration.ofSeconds(10)).tokens()).isEqualTo(15);
        assertThat(left("tokens", uni)).isEqualTo(85);
    }

    @Test
    @DisplayName("two buckets on one method: the settled one takes the cost given for it, the other counts 1")
    void severalBuckets() {
        SettledCostService service = start();
        String tenant = tenant();
        service.both(tenant, 30);
        assertThat(left("tokens", tenant)).isEqualTo(70);
        assertThat(left("requests", tenant)).isEqualTo(49);
    }

    @Test
    @DisplayName("from the response header: X-RateLimit-Cost settles the request's settled calls, and is removed "
            + "before the response leaves; the RateLimit headers report what is left after it; a malformed value "
            + "is removed and ignored, the reservation standing")
    void fromTheResponseHeader() {
        SettledCostService service = start();
        String tenant = tenant();
        MultivaluedMap<String, Object> headers = request(service, tenant, "40");
        assertThat(headers).doesNotContainKey(RateLimitCosts.HEADER);
        assertThat(left("tokens", tenant)).isEqualTo(60);

        MultivaluedMap<String, Object> malformed = request(service, tenant, "4O");
        assertThat(malformed).doesNotContainKey(RateLimitCosts.HEADER);
        assertThat(left("tokens", tenant)).as("the reservation of 1 stands").isEqualTo(59);
    }

    /**
     * One request through the global filter, the settled method and the settlement filter, with the response header
     * {@code cost}.
     *
     * @return the response's headers once filtered
     */
    private MultivaluedMap<String, Object> request(SettledCostService service, String tenant, String cost) {
        RequestContextController requests = cdi.select(RequestContextController.class);
        requests.activate();
        try {
            List<Response> aborted = new ArrayList<>();
            ContainerRequestContext request = ShadowGlobalFilterTest.get("api/completions", aborted);
            cdi.select(GlobalRateLimitFilter.class).filter(request);
            assertThat(service.viaHeader(tenant)).isEqualTo("ok");
            MultivaluedMap<String, Object> headers = new MultivaluedHashMap<>();
            headers.putSingle(RateLimitCosts.HEADER, cost);
            ContainerResponseContext response = ShadowGlobalFilterTest.proxy(ContainerResponseContext.class,
                    (method, args) -> switch (method) {
                        case "getHeaders" -> headers;
                        case "getStatus" -> 200;
                        default -> throw new UnsupportedOperationException(method);
                    });
            cdi.select(SettlementResponseFilter.class).filter(request, response);
            List<AppliedLimits.Applied> applied = cdi.select(RequestIdentity.class).applied().all();
            assertThat(applied).filteredOn(entry -> entry.bucket().name().equals("tokens")).singleElement()
                    .satisfies(entry -> assertThat(entry.verdict().remaining()).as("the headers' remaining")
                            .isEqualTo(left("tokens", tenant)));
            return headers;
        } finally {
            requests.deactivate();
        }
    }

    @Test
    @DisplayName("RateLimitCosts.settle outside a settled call, for a bucket the call does not settle, or with a "
            + "negative cost: a clear error, the call's count untouched")
    void misuse() {
        SettledCostService service = start();
        RateLimitCosts costs = cdi.select(RateLimitCosts.class);
        assertThatThrownBy(() -> costs.settle(3)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("@RateLimited(settle = true)");
        String tenant = tenant();
        assertThatThrownBy(() -> service.notSettled(tenant, 3)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no call of a method with @RateLimited(settle = true)");
        assertThatThrownBy(() -> service.wrongBucket(tenant)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("settles bucket 'requests'")
                .hasMessageContaining("@RateLimited(bucket = \"requests\", settle = true)");
        assertThat(left("tokens", tenant)).as("the failed call keeps its reservation").isEqualTo(99);
        assertThatThrownBy(() -> service.complete(tenant, -1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cost -1 is below 0");
    }

    /** A settled call that counts failures only: one or the other. */
    @ApplicationScoped
    public static class SettledAndFailuresOnly {
        @RateLimited(bucket = "tokens", settle = true, count = RateLimited.Count.FAILURES)
        public String call(@dev.ratelimiter.RateLimitKey String tenant) {
            return "ok";
        }
    }

    @Test
    @DisplayName("settle with count = FAILURES fails the deployment, naming the method and both attributes")
    void settledAndFailuresOnlyFailsTheStart() {
        assertThatThrownBy(() -> CdiContainer.start(new HashMap<>(Map.of(
                "ratelimiter.buckets.tokens.limit", "100",
                "ratelimiter.buckets.tokens.window", "PT1H")), SettledAndFailuresOnly.class))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining(SettledAndFailuresOnly.class.getName() + "#call(String)")
                .hasMessageContaining("settle = true with count = FAILURES");
    }
}
