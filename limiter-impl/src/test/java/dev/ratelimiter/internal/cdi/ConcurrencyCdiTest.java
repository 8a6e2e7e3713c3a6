package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimitExceededException;
import dev.ratelimiter.RateLimits;
import dev.ratelimiter.internal.cdi.call.RequestIdentity;
import dev.ratelimiter.internal.jaxrs.GlobalRateLimitFilter;
import dev.ratelimiter.internal.jaxrs.RefundResponseFilter;
import dev.ratelimiter.internal.jaxrs.RefusalResponder;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.control.RequestContextController;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.core.MultivaluedHashMap;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Concurrency limits through the interceptor and the global filter on the in-memory store
 * (docs/guide.md#concurrency-limits): bucket {@code exports}, 2 calls at once per tenant, each holding a permit from
 * before it runs until it ends, however it ends.
 */
class ConcurrencyCdiTest {

    private CdiContainer cdi;
    private ExecutorService callers;

    @AfterEach
    void stop() {
        if (callers != null) {
            callers.shutdownNow();
        }
        if (cdi != null) {
            cdi.close();
        }
    }

    private ExportService start(Map<String, String> more) {
        Map<String, String> properties = new HashMap<>(Map.of(
                "ratelimiter.buckets.exports.concurrency", "2",
                "ratelimiter.buckets.export-starts.limit", "1",
                "ratelimiter.buckets.export-starts.window", "PT1H"));
        properties.putAll(more);
        cdi = CdiContainer.start(properties, ExportService.class, UniExportService.class, GlobalRateLimitFilter.class,
                RefundResponseFilter.class, RefusalResponder.class, ShadowGlobalFilterTest.OneClient.class,
                DenialRecorder.class);
        callers = Executors.newCachedThreadPool();
        return cdi.select(ExportService.class);
    }

    private long free(String tenant) {
        return cdi.select(RateLimits.class).usage("exports", tenant).remaining();
    }

    private static String tenant() {
        return "tenant-" + UUID.randomUUID();
    }

    /** Starts an export that runs until {@code release} opens; returns once it runs. */
    private Future<String> running(ExportService service, String tenant, CountDownLatch release) throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        Future<String> export = callers.submit(() -> service.run(tenant, started, release));
        assertThat(started.await(10, TimeUnit.SECONDS)).as("the export runs").isTrue();
        return export;
    }

    @Test
    @DisplayName("two exports run at once; the third is refused with 429's exception, no permit left and "
            + "Retry-After 1 s; once they end, both permits are back")
    void thirdRefusedWhileTwoRun() throws Exception {
        ExportService service = start(Map.of());
        String tenant = tenant();
        CountDownLatch release = new CountDownLatch(1);
        Future<String> first = running(service, tenant, release);
        Future<String> second = running(service, tenant, release);
        assertThat(free(tenant)).isZero();

        assertThatExceptionOfType(RateLimitExceededException.class)
                .isThrownBy(() -> service.run(tenant, new CountDownLatch(1), new CountDownLatch(0)))
                .satisfies(e -> {
                    assertThat(e.bucket().name()).isEqualTo("exports");
                    assertThat(e.verdict().remaining()).isZero();
                    assertThat(e.verdict().retryAfterSeconds()).isEqualTo(1);
                });
        assertThat(free(tenant())).as("another tenant's permits").isEqualTo(2);

        release.countDown();
        assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("exported");
        assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo("exported");
        assertThat(free(tenant)).isEqualTo(2);
    }

    @Test
    @DisplayName("a call that throws gives its permit back")
    void failureGivesBack() {
        ExportService service = start(Map.of());
        String tenant = tenant();
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> service.fail(tenant)).isInstanceOf(IllegalStateException.class)
                    .hasMessage("the export failed");
        }
        assertThat(free(tenant)).isEqualTo(2);
    }

    @Test
    @DisplayName("a CompletionStage's call holds its permit until the stage completes, normally or exceptionally")
    void completionStageHoldsItsPermit() {
        ExportService service = start(Map.of());
        String tenant = tenant();
        CompletableFuture<String> one = new CompletableFuture<>();
        CompletableFuture<String> two = new CompletableFuture<>();
        CompletionStage<String> first = service.later(tenant, one);
        service.later(tenant, two);
        assertThat(free(tenant)).isZero();
        assertThat(service.later(tenant, new CompletableFuture<>()).toCompletableFuture())
                .failsWithin(Duration.ofSeconds(5)).withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .withCauseInstanceOf(RateLimitExceededException.class);

        one.complete("done");
        assertThat(first.toCompletableFuture().join()).isEqualTo("done");
        assertThat(free(tenant)).isEqualTo(1);
        two.completeExceptionally(new IllegalStateException("broken"));
        assertThat(free(tenant)).isEqualTo(2);
    }

    @Test
    @DisplayName("a Uni's subscription holds its permit until the Uni ends, or until it is cancelled")
    void uniHoldsItsPermit() {
        ExportService service = start(Map.of());
        String tenant = tenant();
        CompletableFuture<String> result = new CompletableFuture<>();
        UniExportService reactive = cdi.select(UniExportService.class);
        Uni<String> uni = reactive.uni(tenant, result);
        assertThat(free(tenant)).as("nothing is taken before a subscription").isEqualTo(2);
        CompletableFuture<String> subscribed = uni.subscribeAsCompletionStage();
        assertThat(free(tenant)).isEqualTo(1);
        result.complete("done");
        assertThat(subscribed.join()).isEqualTo("done");
        assertThat(free(tenant)).isEqualTo(2);

        io.smallrye.mutiny.subscription.Cancellable cancelled = reactive.uni(tenant, new CompletableFuture<>())
                .subscribe().with(item -> { }, failure -> { });
        assertThat(free(tenant)).isEqualTo(1);
        cancelled.cancel();
        assertThat(free(tenant)).as("a cancelled subscription gives its permit back").isEqualTo(2);
    }

    @Test
    @DisplayName("a permit taken for a call that the method's next bucket refuses is given back at once")
    void refusalOfALaterBucketGivesThePermitBack() {
        ExportService service = start(Map.of());
        String tenant = tenant();
        assertThat(service.started(tenant)).isEqualTo("started");
        assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> service.started(tenant))
                .satisfies(e -> assertThat(e.bucket().name()).isEqualTo("export-starts"));
        assertThat(free(tenant)).isEqualTo(2);
    }

    /** An observer of denials that throws, as a careless audit log might. */
    @jakarta.enterprise.context.ApplicationScoped
    public static class ThrowingAudit {
        void denied(@jakarta.enterprise.event.Observes dev.ratelimiter.RateLimitDenied denied) {
            throw new IllegalStateException("the audit log is down");
        }
    }

    @Test
    @DisplayName("a decision that fails after it took a permit (an observer of its denial threw) gives the permit back")
    void failedDecisionGivesThePermitBack() {
        Map<String, String> properties = new HashMap<>(Map.of(
                "ratelimiter.buckets.exports.concurrency", "2",
                "ratelimiter.buckets.export-starts.limit", "1",
                "ratelimiter.buckets.export-starts.window", "PT1H"));
        cdi = CdiContainer.start(properties, ExportService.class, ThrowingAudit.class);
        ExportService service = cdi.select(ExportService.class);
        String tenant = tenant();
        assertThat(service.started(tenant)).isEqualTo("started");
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> service.started(tenant)).hasMessageContaining("the audit log is down");
        }
        assertThat(free(tenant)).isEqualTo(2);
    }

    @Test
    @DisplayName("a call longer than its lease of 1 s keeps its permit: renewed while it runs, never freed under it")
    void renewalKeepsALongCallsPermit() throws Exception {
        ExportService service = start(Map.of("ratelimiter.buckets.exports.lease", "PT1S"));
        String tenant = tenant();
        CountDownLatch release = new CountDownLatch(1);
        Future<String> export = running(service, tenant, release);
        await().during(Duration.ofMillis(2_500)).atMost(Duration.ofSeconds(5))
                .until(() -> free(tenant) == 1);
        release.countDown();
        assertThat(export.get(10, TimeUnit.SECONDS)).isEqualTo("exported");
        assertThat(free(tenant)).isEqualTo(2);
    }

    @Test
    @DisplayName("RateLimits.consume on a concurrency bucket is refused with a message saying where permits are taken; "
            + "usage reads its permits")
    void facade() {
        start(Map.of());
        RateLimits limits = cdi.select(RateLimits.class);
        assertThatThrownBy(() -> limits.consume("exports", "t")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("limits concurrency").hasMessageContaining("@RateLimited");
        assertThat(limits.usage("exports", "t").limit()).isEqualTo(2);
    }

    @Test
    @DisplayName("the global filter's concurrency bucket: a request holds a permit until its response is filtered, "
            + "or until the request ends when none is")
    void globalFilter() {
        start(Map.of("ratelimiter.buckets.api-anonymous.concurrency", "1"));
        RequestContextController requests = cdi.select(RequestContextController.class);
        List<Response> aborted = new ArrayList<>();

        requests.activate();
        ContainerRequestContext first = ShadowGlobalFilterTest.get("api/exports", aborted);
        cdi.select(GlobalRateLimitFilter.class).filter(first);
        assertThat(aborted).isEmpty();
        ContainerRequestContext second = ShadowGlobalFilterTest.get("api/exports", aborted);
        cdi.select(GlobalRateLimitFilter.class).filter(second);
        assertThat(aborted).singleElement().satisfies(refusal -> assertThat(refusal.getStatus()).isEqualTo(429));
        ContainerResponseContext response = ShadowGlobalFilterTest.proxy(ContainerResponseContext.class,
                (method, args) -> switch (method) {
                    case "getHeaders" -> new MultivaluedHashMap<>();
                    case "getStatus" -> 500;
                    default -> throw new UnsupportedOperationException(method);
                });
        cdi.select(RefundResponseFilter.class).filter(first, response);
        requests.deactivate();

        requests.activate();
        aborted.clear();
        cdi.select(GlobalRateLimitFilter.class).filter(ShadowGlobalFilterTest.get("api/exports", aborted));
        assertThat(aborted).as("the permit came back with the response, whatever its status").isEmpty();
        requests.deactivate(); // no response filtered: the request's end gives it back

        requests.activate();
        cdi.select(GlobalRateLimitFilter.class).filter(ShadowGlobalFilterTest.get("api/exports", aborted));
        assertThat(aborted).as("the permit came back when the request ended").isEmpty();
        assertThat(cdi.select(RequestIdentity.class).applied().all()).singleElement()
                .satisfies(applied -> assertThat(applied.bucket().isConcurrency()).isTrue());
        requests.deactivate();
    }
}
