package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.spi.RateLimitStore;
import dev.ratelimiter.spi.StoreItem;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two buckets decided in one call (issue #16 item 2), for a standalone server and a cluster: both counted while
 * both have room; a refusal of the first leaves the second undecided and uncounted.
 */
final class SeveralItems {

    private SeveralItems() {
    }

    /**
     * @param store  the store under test, with key prefix {@code rl-test:}
     * @param client reads the counters
     * @param name   makes the buckets' names unique to the caller
     */
    static void assertTwoBuckets(RateLimitStore store, ValkeyClient client, String name) throws Exception {
        Bucket first = Bucket.of(name + "-first", 1, Duration.ofSeconds(60));
        Bucket second = Bucket.of(name + "-second", 5, Duration.ofSeconds(60));
        String firstKey = "rl-test:{" + first.name() + ":k}";
        String secondKey = "rl-test:{" + second.name() + ":k}";
        List<StoreItem> items = List.of(new StoreItem(first, "k", 1), new StoreItem(second, "k", 1));

        long[] both = store.consume(items);
        assertThat(both).as("each item: allowed, count, milliseconds left").hasSize(6);
        assertThat(both[0]).as("first allowed").isEqualTo(1L);
        assertThat(both[1]).as("first counted").isEqualTo(1L);
        assertThat(both[2]).isBetween(1L, 60_000L);
        assertThat(both[3]).as("second allowed").isEqualTo(1L);
        assertThat(both[4]).as("second counted").isEqualTo(1L);
        assertThat(both[5]).isBetween(1L, 60_000L);
        assertThat(client.commands().get(firstKey)).isEqualTo("1");
        assertThat(client.commands().get(secondKey)).isEqualTo("1");

        long[] refused = store.consume(items);
        assertThat(refused).as("the answer ends after the refused item").hasSize(3);
        assertThat(refused[0]).as("first refused").isEqualTo(0L);
        assertThat(refused[1]).as("first's count unchanged").isEqualTo(1L);
        assertThat(client.commands().get(firstKey)).isEqualTo("1");
        assertThat(client.commands().get(secondKey)).as("the second item was not counted").isEqualTo("1");

        long[] secondFirst = store.consume(List.of(items.get(1), items.get(0)));
        assertThat(secondFirst).as("in the other order: second allowed and counted, first refused").hasSize(6);
        assertThat(secondFirst[0]).isEqualTo(1L);
        assertThat(secondFirst[1]).isEqualTo(2L);
        assertThat(secondFirst[3]).isEqualTo(0L);
        assertThat(client.commands().get(secondKey)).isEqualTo("2");
    }
}
