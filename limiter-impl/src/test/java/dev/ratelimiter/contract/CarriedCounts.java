package dev.ratelimiter.contract;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.Verdict.Outcome;

import java.time.Duration;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the per-process fallback carries from a shared store into an outage
 * (docs/operations.md#what-the-fallback-knows), checked on a store's chain: before the outage, a key spends all 5
 * attempts and is refused, another keeps 2 of 5; during it, the first stays refused and the second gets at most 2.
 */
public final class CarriedCounts {

    /** The bucket: 5 attempts in 5 minutes, the default outage policy ({@code FALLBACK}). */
    public static final Bucket BUCKET = Bucket.of("carried", 5, Duration.ofMinutes(5));

    private final Limiter chain;
    private final String locked;
    private final String twoLeft;

    /** Before the outage: spends the attempts through the store. */
    public CarriedCounts(Limiter chain, String run) {
        this.chain = chain;
        this.locked = "locked-" + run;
        this.twoLeft = "two-left-" + run;
        for (int i = 0; i < 5; i++) {
            assertThat(chain.consume(BUCKET, locked).outcome()).isEqualTo(Outcome.ALLOWED);
        }
        assertThat(chain.consume(BUCKET, locked).outcome()).as("refused by the store").isEqualTo(Outcome.DENIED);
        for (int i = 0; i < 3; i++) {
            chain.consume(BUCKET, twoLeft);
        }
    }

    /** During the outage (the chain answers from its fallback): the refused key stays so, the other gets at most 2. */
    public void assertCarried() {
        for (int i = 0; i < 3; i++) {
            assertThat(chain.consume(BUCKET, locked).outcome()).as("the key the store refused, attempt %d", i)
                    .isEqualTo(Outcome.DENIED);
        }
        long allowed = IntStream.range(0, 5)
                .filter(i -> chain.consume(BUCKET, twoLeft).outcome() == Outcome.ALLOWED).count();
        assertThat(allowed).as("attempts allowed to the key with 2 left").isLessThanOrEqualTo(2);
    }
}
