package dev.ratelimiter.contract;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.internal.core.chain.BlockLimiter;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.internal.core.monitor.DecisionMarks;
import dev.ratelimiter.internal.core.settings.BlockSettings;
import dev.ratelimiter.spi.StoreItem;
import dev.ratelimiter.spi.StoreRefund;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static dev.ratelimiter.contract.Capability.SLIDING_WINDOW;
import static dev.ratelimiter.contract.Capability.TOKEN_BUCKET;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Blocks after a refusal (docs/guide.md#blocks-after-a-refusal): the block, its growth, its expiry and its reset, made
 * by {@link BlockLimiter} of the store's own counts, so every store runs them as they are. Blocks are seconds long, so
 * that a store timed by its server's clock runs them with real waiting.
 */
abstract class BlockCases extends ContractCases {

    BlockCases(RateLimiterContract contract) {
        super(contract);
    }

    private BlockLimiter blocks(Bucket bucket, BlockSettings settings) {
        return new BlockLimiter(limiter, Map.of(bucket.name(), settings), new DecisionMarks());
    }

    private static BlockSettings block(long firstSeconds, long maxSeconds, long forgetSeconds) {
        return new BlockSettings(Duration.ofSeconds(firstSeconds), Duration.ofSeconds(maxSeconds),
                Duration.ofSeconds(forgetSeconds));
    }

    @Test
    @DisplayName("block: a key the limits refused stays refused to the block's end, though its window ended; other "
            + "keys are not blocked; then it is allowed again")
    void blockOutlivesTheWindow() {
        Bucket bucket = bucket("block", 1, Duration.ofSeconds(1));
        BlockLimiter blocks = blocks(bucket, block(3, 3, 0));
        assertThat(blocks.consume(bucket, "k").outcome()).isEqualTo(Outcome.ALLOWED);
        Verdict refused = blocks.consume(bucket, "k");
        assertThat(refused.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(refused.remaining()).isZero();
        assertThat(refused.limit()).as("the bucket's limit, for the headers").isEqualTo(1);
        assertThat(refused.resetAfter()).as("the block's end, not the window's").isEqualTo(Duration.ofSeconds(3));

        time().advance(Duration.ofMillis(1_500));
        Verdict blocked = blocks.consume(bucket, "k");
        assertThat(blocked.outcome()).as("the window ended, the block did not").isEqualTo(Outcome.DENIED);
        assertThat(blocked.resetAfter()).isGreaterThan(Duration.ZERO).isLessThanOrEqualTo(Duration.ofMillis(1_500));
        assertThat(blocks.consume(bucket, "other").outcome()).isEqualTo(Outcome.ALLOWED);

        time().advance(Duration.ofMillis(1_600));
        assertThat(blocks.consume(bucket, "k").outcome()).as("the block ended").isEqualTo(Outcome.ALLOWED);
    }

    @Test
    @DisplayName("upstream hold: an upstream's Retry-After of 2 s (upstream-hold-max 60 s) holds the key on every "
            + "replica until then, counting nothing in its window; other keys pass; then the key is allowed again")
    void upstreamHoldOnEveryReplica() {
        Bucket bucket = bucket("hold", 5, Duration.ofSeconds(60));
        BlockSettings holds = BlockSettings.upstreamHoldsOnly(Duration.ofSeconds(60));
        BlockLimiter here = blocks(bucket, holds);
        BlockLimiter there = new BlockLimiter(replica(), Map.of(bucket.name(), holds), new DecisionMarks());
        assertThat(here.consume(bucket, "k").remaining()).isEqualTo(4);
        assertThat(here.hold(bucket, "k", Duration.ofMillis(1_500))).isTrue();
        Verdict held = there.consume(bucket, "k");
        assertThat(held.outcome()).as("on the other replica").isEqualTo(Outcome.DENIED);
        assertThat(held.resetAfter()).as("rounded up to whole seconds").isBetween(Duration.ofMillis(1_800),
                Duration.ofSeconds(2));
        assertThat(here.consume(bucket, "other").outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(here.consume(bucket, "k").outcome()).isEqualTo(Outcome.DENIED);

        time().advance(Duration.ofMillis(2_100));
        Verdict after = there.consume(bucket, "k");
        assertThat(after.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(after.remaining()).as("held calls counted nothing").isEqualTo(3);
    }

    @Test
    @DisplayName("upstream hold: a longer hold replaces a shorter one in force, a shorter one leaves a longer one, and "
            + "a hold beyond upstream-hold-max lasts upstream-hold-max")
    void longerHoldWins() {
        Bucket bucket = bucket("hold-longer", 5, Duration.ofSeconds(60));
        BlockLimiter holds = blocks(bucket, BlockSettings.upstreamHoldsOnly(Duration.ofSeconds(10)));
        holds.hold(bucket, "k", Duration.ofSeconds(2));
        holds.hold(bucket, "k", Duration.ofSeconds(5));
        assertThat(holds.consume(bucket, "k").resetAfter()).isBetween(Duration.ofMillis(4_800), Duration.ofSeconds(5));
        holds.hold(bucket, "k", Duration.ofSeconds(3));
        assertThat(holds.consume(bucket, "k").resetAfter()).as("the longer stays")
                .isBetween(Duration.ofMillis(4_800), Duration.ofSeconds(5));
        holds.hold(bucket, "other", Duration.ofHours(1));
        assertThat(holds.consume(bucket, "other").resetAfter()).isBetween(Duration.ofMillis(9_800),
                Duration.ofSeconds(10));
    }

    @Test
    @DisplayName("block: every replica refuses a key another blocked, to the same end")
    void everyReplicaRefuses() {
        Bucket bucket = bucket("block-replicas", 1, Duration.ofSeconds(60));
        BlockLimiter first = blocks(bucket, block(120, 120, 0));
        BlockLimiter second = blocks(bucket, block(120, 120, 0));
        first.consume(bucket, "k");
        assertThat(first.consume(bucket, "k").resetAfter()).isEqualTo(Duration.ofSeconds(120));
        Verdict elsewhere = second.consume(bucket, "k");
        assertThat(elsewhere.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(elsewhere.resetAfter()).as("the block's end, not the window's 60 s")
                .isGreaterThan(Duration.ofSeconds(110)).isLessThanOrEqualTo(Duration.ofSeconds(120));
    }

    @Test
    @DisplayName("escalation: each block while earlier ones are remembered lasts twice the one before, up to the "
            + "longest")
    void blocksDouble() {
        Bucket bucket = bucket("block-double", 1, Duration.ofSeconds(1));
        BlockLimiter blocks = blocks(bucket, block(1, 3, 60));
        assertThat(refusal(blocks, bucket)).isEqualTo(Duration.ofSeconds(1));
        time().advance(Duration.ofMillis(1_100));
        assertThat(refusal(blocks, bucket)).isEqualTo(Duration.ofSeconds(2));
        time().advance(Duration.ofMillis(2_100));
        assertThat(refusal(blocks, bucket)).as("4 s, at most the longest").isEqualTo(Duration.ofSeconds(3));
        time().advance(Duration.ofMillis(3_100));
        assertThat(refusal(blocks, bucket)).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    @DisplayName("expiry: after forget-after without a block, the next block is the first's length again")
    void countForgotten() {
        Bucket bucket = bucket("block-forget", 1, Duration.ofSeconds(1));
        BlockLimiter blocks = blocks(bucket, block(1, 8, 2));
        assertThat(refusal(blocks, bucket)).isEqualTo(Duration.ofSeconds(1));
        time().advance(Duration.ofMillis(1_100));
        assertThat(refusal(blocks, bucket)).isEqualTo(Duration.ofSeconds(2));
        time().advance(Duration.ofMillis(2_100)); // the block ended; its count is remembered 2 s more
        assertThat(blocks.consume(bucket, "k").outcome()).isEqualTo(Outcome.ALLOWED);
        time().advance(Duration.ofMillis(2_100));
        assertThat(refusal(blocks, bucket)).as("forgotten").isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    @DisplayName("reset: a reset of the key (a successful login) lifts its block and forgets its earlier blocks")
    void resetLifts() {
        Bucket bucket = bucket("block-reset", 1, Duration.ofSeconds(60));
        BlockLimiter blocks = blocks(bucket, block(60, 240, 3_600));
        assertThat(refusal(blocks, bucket)).isEqualTo(Duration.ofSeconds(60));
        blocks.reset(bucket, "k");
        assertThat(refusal(blocks, bucket)).as("lifted, and the count forgotten: not 120 s")
                .isEqualTo(Duration.ofSeconds(60));
        assertThat(blocks.consume(bucket, "k").outcome()).isEqualTo(Outcome.DENIED);
    }

    @Test
    @DisplayName("block: a read at cost 0 of a key at its limit is refused, and sets no block")
    void readSetsNoBlock() {
        Bucket bucket = bucket("block-read", 1, Duration.ofSeconds(1));
        BlockLimiter blocks = blocks(bucket, block(60, 60, 0));
        blocks.consume(bucket, "k");
        Verdict read = blocks.consume(bucket, "k", 0);
        assertThat(read.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(read.resetAfter()).as("the window's end").isLessThanOrEqualTo(Duration.ofSeconds(1));
        time().advance(Duration.ofMillis(1_100));
        assertThat(blocks.consume(bucket, "k").outcome()).isEqualTo(Outcome.ALLOWED);
    }

    @Test
    @DisplayName("several buckets in one call: the blocked bucket's call is refused by its block, and the buckets "
            + "before it keep their count")
    void severalBuckets() {
        Bucket open = bucket("block-open", 10, Duration.ofSeconds(60));
        Bucket blocked = bucket("block-several", 1, Duration.ofSeconds(60));
        BlockLimiter blocks = blocks(blocked, block(120, 120, 0));
        List<StoreItem> call = List.of(new StoreItem(open, "k", 1), new StoreItem(blocked, "k", 1));
        assertThat(blocks.consumeAll(call)).extracting(Verdict::outcome)
                .containsExactly(Outcome.ALLOWED, Outcome.ALLOWED);
        Verdict[] refused = blocks.consumeAll(call);
        assertThat(refused).extracting(Verdict::outcome).containsExactly(Outcome.ALLOWED, Outcome.DENIED);
        assertThat(refused[1].resetAfter()).isEqualTo(Duration.ofSeconds(120));
        Verdict[] again = blocks.consumeAll(call);
        assertThat(again).extracting(Verdict::outcome).containsExactly(Outcome.ALLOWED, Outcome.DENIED);
        assertThat(again[0].remaining()).as("counted before the block refused").isEqualTo(7);
        assertThat(again[1].resetAfter()).isGreaterThan(Duration.ofSeconds(110));
    }

    @Test
    @Requires(TOKEN_BUCKET)
    @DisplayName("block: a token bucket's refusal blocks the key past its refill")
    void tokenBucket() {
        Bucket bucket = tokenBucket("block-tokens", 0, new Limit(1, Duration.ofSeconds(1)));
        BlockLimiter blocks = blocks(bucket, block(3, 3, 0));
        blocks.consume(bucket, "k");
        assertThat(blocks.consume(bucket, "k").resetAfter()).isEqualTo(Duration.ofSeconds(3));
        time().advance(Duration.ofMillis(1_500));
        assertThat(blocks.consume(bucket, "k").outcome()).as("refilled, still blocked").isEqualTo(Outcome.DENIED);
    }

    @Test
    @Requires(SLIDING_WINDOW)
    @DisplayName("block: a sliding window's refusal blocks the key past its window")
    void slidingWindow() {
        Bucket bucket = slidingWindow("block-sliding", new Limit(1, Duration.ofSeconds(1)));
        BlockLimiter blocks = blocks(bucket, block(4, 4, 0));
        blocks.consume(bucket, "k");
        assertThat(blocks.consume(bucket, "k").resetAfter()).isEqualTo(Duration.ofSeconds(4));
        time().advance(Duration.ofMillis(2_200));
        assertThat(blocks.consume(bucket, "k").outcome()).as("slid out, still blocked").isEqualTo(Outcome.DENIED);
    }

    /**
     * Spends the key's one call and returns the length of the block its next call is refused with, after checking
     * that the store holds the block to that end: the next call, refused by it, ends no later.
     */
    private static Duration refusal(BlockLimiter blocks, Bucket bucket) {
        assertThat(blocks.consume(bucket, "k").outcome()).isEqualTo(Outcome.ALLOWED);
        Verdict refused = blocks.consume(bucket, "k");
        assertThat(refused.outcome()).isEqualTo(Outcome.DENIED);
        Verdict held = blocks.consume(bucket, "k");
        assertThat(held.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(held.resetAfter()).as("the block as the store holds it").isLessThanOrEqualTo(refused.resetAfter())
                .isGreaterThan(refused.resetAfter().minusSeconds(1));
        return refused.resetAfter();
    }

    @Test
    @DisplayName("race: a call that reckoned a shorter block and lost the race to set it leaves the longer block "
            + "as it is")
    void losingRaceShortensNothing() {
        Bucket bucket = bucket("block-race", 1, Duration.ofSeconds(60));
        BlockLimiter longer = blocks(bucket, block(120, 120, 0));
        // A replica that reckons a first block of 10 s, whose check passed just before the other set its block: the
        // check's answer is the one it had then.
        Limiter checkedEarlier = new Limiter() {
            private boolean first = true;

            @Override
            public Verdict consume(Bucket b, String key, long cost) {
                if (first && cost == 0 && key.endsWith(BlockLimiter.BLOCK)) {
                    first = false;
                    return Verdict.allowed(1, 1, Duration.ofSeconds(120));
                }
                return limiter.consume(b, key, cost);
            }

            @Override
            public void reset(Bucket b, String key) {
                limiter.reset(b, key);
            }

            @Override
            public boolean refund(List<StoreRefund> refunds) {
                return limiter.refund(refunds);
            }
        };
        BlockLimiter shorter = new BlockLimiter(checkedEarlier, Map.of(bucket.name(), block(10, 120, 60)),
                new DecisionMarks());
        longer.consume(bucket, "k");
        assertThat(longer.consume(bucket, "k").resetAfter()).isEqualTo(Duration.ofSeconds(120));
        Verdict lost = shorter.consume(bucket, "k");
        assertThat(lost.outcome()).isEqualTo(Outcome.DENIED);
        assertThat(lost.resetAfter()).as("the block the other set").isGreaterThan(Duration.ofSeconds(110));
        assertThat(longer.consume(bucket, "k").resetAfter()).as("still the 120 s block")
                .isGreaterThan(Duration.ofSeconds(110));
    }
}
