package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.internal.cdi.ShadowGlobalFilterTest.OneClient;
import dev.ratelimiter.internal.cdi.call.RequestIdentity;
import dev.ratelimiter.internal.jaxrs.GlobalRateLimitFilter;
import dev.ratelimiter.internal.jaxrs.RefusalResponder;
import jakarta.enterprise.context.control.RequestContextController;
import jakarta.json.Json;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.io.StringReader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The global filter's buckets with lists (Weld SE, a stand-in request for {@code GET /api/projects} from
 * 203.0.113.7): a denied address is aborted with the key-denied problem, an allowed one is never aborted
 * (docs/guide.md#allow-and-deny-lists).
 */
class KeyListsGlobalFilterTest {

    private CdiContainer cdi;

    @AfterEach
    void stop() {
        if (cdi != null) {
            cdi.close();
        }
    }

    private List<jakarta.ws.rs.core.Response> requests(int count, String... lists) {
        Map<String, String> properties = new HashMap<>(Map.of("ratelimiter.buckets.api-anonymous.limit", "3"));
        for (int i = 0; i < lists.length; i += 2) {
            properties.put(lists[i], lists[i + 1]);
        }
        cdi = CdiContainer.start(properties, GlobalRateLimitFilter.class, RefusalResponder.class, OneClient.class,
                DenialRecorder.class);
        GlobalRateLimitFilter filter = cdi.select(GlobalRateLimitFilter.class);
        RequestContextController request = cdi.select(RequestContextController.class);
        List<jakarta.ws.rs.core.Response> aborted = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            request.activate();
            try {
                filter.filter(ShadowGlobalFilterTest.get("api/projects", aborted));
                assertThat(cdi.select(RequestIdentity.class).applied().all()).singleElement()
                        .satisfies(applied -> assertThat(applied.bucket().name()).isEqualTo("api-anonymous"));
            } finally {
                request.deactivate();
            }
        }
        return aborted;
    }

    @Test
    @DisplayName("api-anonymous denying the client's range: the first request is aborted with 429 of type key-denied and Retry-After 60")
    void deniedRange() {
        List<jakarta.ws.rs.core.Response> aborted = requests(2, "ratelimiter.buckets.api-anonymous.deny",
                "198.51.100.0/24, 203.0.113.0/24");
        assertThat(aborted).hasSize(2).allSatisfy(response -> {
            assertThat(response.getStatus()).isEqualTo(429);
            assertThat(response.getHeaderString("Retry-After")).isEqualTo("60");
            assertThat(Json.createReader(new StringReader((String) response.getEntity())).readObject()
                    .getString("type")).isEqualTo("tag:ratelimiter.dev,2026:key-denied");
        });
        assertThat(cdi.select(DenialRecorder.class).denials()).isEmpty();
    }

    @Test
    @DisplayName("api-anonymous allowing the client's address: 5 requests under a limit of 3, none aborted")
    void allowedAddress() {
        assertThat(requests(5, "ratelimiter.buckets.api-anonymous.allow", "203.0.113.7")).isEmpty();
        assertThat(cdi.select(DenialRecorder.class).denials()).isEmpty();
    }
}
