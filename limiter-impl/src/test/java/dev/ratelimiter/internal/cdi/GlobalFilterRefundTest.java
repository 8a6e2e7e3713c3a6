package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.internal.cdi.call.RequestIdentity;
import dev.ratelimiter.internal.jaxrs.GlobalRateLimitFilter;
import dev.ratelimiter.internal.jaxrs.RefundResponseFilter;
import dev.ratelimiter.internal.jaxrs.RefusalResponder;
import jakarta.enterprise.context.control.RequestContextController;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.core.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The global filter's anonymous bucket counting failures only (docs/guide.md#counting-failures-only; Weld SE, a
 * stand-in request for {@code GET /api/projects} and its response): a response below 400 gives the request's count
 * back, a failure status keeps it.
 */
class GlobalFilterRefundTest {

    private CdiContainer cdi;

    @AfterEach
    void stop() {
        if (cdi != null) {
            cdi.close();
        }
    }

    @Test
    @DisplayName("api-anonymous, 3 per minute, count=failures: 10 answered 200 spend nothing; 3 answered 401 spend "
            + "it, and the next request is refused before the resource runs")
    void statusDecides() {
        cdi = CdiContainer.start(new HashMap<>(Map.of(
                "ratelimiter.buckets.api-anonymous.limit", "3",
                "ratelimiter.buckets.api-anonymous.count", "failures",
                "ratelimiter.buckets.api-anonymous.failure-statuses", "400-499")),
                GlobalRateLimitFilter.class, RefundResponseFilter.class, RefusalResponder.class,
                ShadowGlobalFilterTest.OneClient.class, DenialRecorder.class);
        List<Response> aborted = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            assertThat(request(200, aborted)).as("the RateLimit header's remaining, the count given back")
                    .isEqualTo(3);
        }
        request(503, aborted);
        assertThat(aborted).as("successes and a status outside failure-statuses give back").isEmpty();
        for (int i = 0; i < 3; i++) {
            assertThat(request(401, aborted)).isEqualTo(2 - i);
        }
        assertThat(aborted).isEmpty();
        request(200, aborted);
        assertThat(aborted).singleElement().extracting(Response::getStatus).isEqualTo(429);
    }

    /**
     * One request through the global filter and, unless it was aborted, its response of {@code status}.
     *
     * @return the remaining its RateLimit header reports
     */
    private long request(int status, List<Response> aborted) {
        RequestContextController requests = cdi.select(RequestContextController.class);
        requests.activate();
        try {
            int before = aborted.size();
            ContainerRequestContext request = ShadowGlobalFilterTest.get("api/projects", aborted);
            cdi.select(GlobalRateLimitFilter.class).filter(request);
            ContainerResponseContext response = ShadowGlobalFilterTest.proxy(ContainerResponseContext.class,
                    (method, args) -> switch (method) {
                        case "getStatus" -> aborted.size() > before ? 429 : status;
                        default -> throw new UnsupportedOperationException(method);
                    });
            cdi.select(RefundResponseFilter.class).filter(request, response);
            return cdi.select(RequestIdentity.class).applied().all().get(0).verdict().remaining();
        } finally {
            requests.deactivate();
        }
    }
}
