package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.internal.cdi.call.RequestIdentity;
import dev.ratelimiter.internal.jaxrs.ClientAddressSource;
import dev.ratelimiter.internal.jaxrs.GlobalRateLimitFilter;
import dev.ratelimiter.internal.jaxrs.RefusalResponder;
import dev.ratelimiter.internal.jaxrs.ServerRequest;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.control.RequestContextController;
import jakarta.enterprise.inject.Alternative;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.PathSegment;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The global filter with its anonymous bucket in shadow mode (Weld SE, a stand-in request for
 * {@code GET /api/projects}): past the limit the request is not aborted, and the verdict recorded for the
 * RateLimit headers says 0 remaining.
 */
class ShadowGlobalFilterTest {

    /** Every request comes from one client, as if the servlet container had said so. */
    @ApplicationScoped
    @Alternative
    @Priority(1)
    static class OneClient extends ClientAddressSource {
        @Override
        public String clientAddress(ContainerRequestContext request) {
            return "203.0.113.7";
        }

        @Override
        public ServerRequest server() {
            return new ServerRequest() {
                @Override
                public Optional<String> peerAddress() {
                    return Optional.of("203.0.113.7");
                }

                @Override
                public String contextPath() {
                    return "";
                }
            };
        }
    }

    private CdiContainer cdi;

    @AfterEach
    void stop() {
        if (cdi != null) {
            cdi.close();
        }
    }

    @Test
    @DisplayName("api-anonymous in shadow mode: the 4th request of a limit of 3 is not aborted, and records remaining 0")
    void globalBucketShadowed() {
        cdi = CdiContainer.start(new HashMap<>(Map.of(
                "ratelimiter.buckets.api-anonymous.limit", "3",
                "ratelimiter.buckets.api-anonymous.mode", "shadow")),
                GlobalRateLimitFilter.class, RefusalResponder.class, OneClient.class, DenialRecorder.class);
        GlobalRateLimitFilter filter = cdi.select(GlobalRateLimitFilter.class);
        RequestContextController request = cdi.select(RequestContextController.class);
        List<Response> aborted = new ArrayList<>();
        for (int i = 1; i <= 4; i++) {
            request.activate();
            try {
                filter.filter(get("api/projects", aborted));
                if (i == 4) {
                    assertThat(cdi.select(RequestIdentity.class).applied().all()).singleElement().satisfies(applied -> {
                        assertThat(applied.bucket().name()).isEqualTo("api-anonymous");
                        assertThat(applied.verdict().remaining()).isZero();
                        assertThat(applied.verdict().isAllowed()).isTrue();
                    });
                }
            } finally {
                request.deactivate();
            }
        }
        assertThat(aborted).isEmpty();
        assertThat(cdi.select(DenialRecorder.class).denials()).isEmpty();
    }

    /** A stand-in for a post-matching {@code GET /<path>} without a principal; aborts are added to {@code aborted}. */
    static ContainerRequestContext get(String path, List<Response> aborted) {
        Map<String, Object> properties = new HashMap<>();
        UriInfo uri = proxy(UriInfo.class, (method, args) -> switch (method) {
            case "getBaseUri" -> URI.create("http://localhost/");
            case "getPathSegments" -> java.util.Arrays.stream(path.split("/"))
                    .map(segment -> proxy(PathSegment.class, (m, a) -> m.equals("getPath") ? segment : null))
                    .toList();
            default -> throw new UnsupportedOperationException(method);
        });
        return proxy(ContainerRequestContext.class, (method, args) -> switch (method) {
            case "getProperty" -> properties.get((String) args[0]);
            case "setProperty" -> properties.put((String) args[0], args[1]);
            case "removeProperty" -> properties.remove((String) args[0]);
            case "getSecurityContext" -> null;
            case "getMethod" -> "GET";
            case "getUriInfo" -> uri;
            case "abortWith" -> aborted.add((Response) args[0]);
            default -> throw new UnsupportedOperationException(method);
        });
    }

    interface Answer {
        Object answer(String method, Object[] args);
    }

    static <T> T proxy(Class<T> type, Answer answer) {
        return type.cast(Proxy.newProxyInstance(ShadowGlobalFilterTest.class.getClassLoader(), new Class<?>[] {type},
                (proxy, method, args) -> answer.answer(method.getName(), args)));
    }
}
