package dev.ratelimiter.internal.core.chain;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.OutagePolicy;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.internal.core.monitor.DecisionMarks;
import dev.ratelimiter.internal.core.monitor.OutageListener;
import dev.ratelimiter.internal.core.settings.BlockSettings;
import dev.ratelimiter.spi.StoreRefund;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** What the blocks' limiter answers when its own calls fail (docs/guide.md#blocks-after-a-refusal). */
class BlockLimiterTest {

    private static final Duration WINDOW = Duration.ofMinutes(15);

    /** A store that refuses the bucket's own item with 5 minutes left, and fails every call of a block's key. */
    private static final Limiter REFUSING_WITHOUT_BLOCKS = new Limiter() {
        @Override
        public Verdict consume(Bucket bucket, String key, long cost) {
            if (key.endsWith(BlockLimiter.BLOCK) && cost > 0) {
                return Verdict.unavailable(bucket.limit(), Duration.ZERO);
            }
            return key.endsWith(BlockLimiter.BLOCK) ? Verdict.allowed(1, 1, bucket.window())
                    : Verdict.denied(bucket.limit(), Duration.ofMinutes(5));
        }

        @Override
        public void reset(Bucket bucket, String key) {
        }

        @Override
        public boolean refund(List<StoreRefund> refunds) {
            return false;
        }
    };

    @Test
    @DisplayName("a block that could not be set, its store failing and the bucket failing open, is no block: the "
            + "refusal keeps the window's Retry-After")
    void failedSetIsNoBlock() {
        Bucket search = Bucket.of("search", 5, WINDOW, OutagePolicy.FAIL_OPEN);
        BlockLimiter blocks = new BlockLimiter(new OutagePolicyLimiter(REFUSING_WITHOUT_BLOCKS, Optional.empty(),
                OutageListener.NONE), Map.of("search", new BlockSettings(Duration.ofHours(1), Duration.ofHours(1),
                Duration.ZERO)), new DecisionMarks());
        Verdict refused = blocks.consume(search, "k");
        assertThat(refused.outcome()).isEqualTo(Verdict.Outcome.DENIED);
        assertThat(refused.resetAfter()).as("the window's, not an hour's block that is nowhere")
                .isEqualTo(Duration.ofMinutes(5));
    }
}
