package dev.ratelimiter.internal.postgres;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.spi.StoreItem;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The order a round trip's calls are sent in ({@link CallOrder}). */
class CallOrderTest {

    private static final Bucket LOGIN = Bucket.of("login", 5, Duration.ofMinutes(1));
    private static final Bucket API = Bucket.of("api", 5, Duration.ofMinutes(1));

    private static List<StoreItem> call(Bucket bucket, String key) {
        return List.of(new StoreItem(bucket, key, 1));
    }

    @Test
    @DisplayName("one-item calls go by (bucket, key) in byte order (upper case before lower), calls of one key in "
            + "the order they came; the answers come back to their calls' places")
    void sortsOneItemCallsStably() {
        List<List<StoreItem>> calls = List.of(call(LOGIN, "b"), call(API, "z"), call(LOGIN, "a"), call(LOGIN, "b"),
                call(LOGIN, "B"));
        int[] order = CallOrder.of(calls);
        assertThat(order).containsExactly(1, 4, 2, 0, 3);
        assertThat(CallOrder.sorted(calls, order)).containsExactly(calls.get(1), calls.get(4), calls.get(2),
                calls.get(0), calls.get(3));
        long[][] answers = {{1}, {4}, {2}, {0}, {3}};
        assertThat(CallOrder.unsorted(answers, order)).isDeepEqualTo(new long[][] {{0}, {1}, {2}, {3}, {4}});
    }

    @Test
    @DisplayName("calls already in order, or with a call of several items, go as they came")
    void leavesOrderedAndSeveralItemCallsAlone() {
        assertThat(CallOrder.of(List.of(call(API, "a"), call(LOGIN, "a"), call(LOGIN, "a"), call(LOGIN, "b"))))
                .isNull();
        assertThat(CallOrder.of(List.of(call(LOGIN, "b"), List.of(new StoreItem(LOGIN, "a", 1),
                new StoreItem(API, "b", 1))))).isNull();
    }
}
