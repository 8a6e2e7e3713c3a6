package dev.ratelimiter.internal.core.monitor;

import dev.ratelimiter.Bucket;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/** The trace's marks (decided by the fallback, refused by a block): per bucket, per thread, and only on a thread the decider armed. */
class DecisionMarksTest {

    private static final Bucket LOGIN = Bucket.of("login", 5, Duration.ofMinutes(15));
    private static final Bucket SEARCH = Bucket.of("search", 10, Duration.ofMinutes(1));

    @Test
    @DisplayName("unarmed, a fallback decision leaves nothing: a thread that does not trace keeps no marks")
    void unarmedRecordsNothing() {
        DecisionMarks marks = new DecisionMarks();
        marks.fallback(LOGIN);
        assertThat(marks.decided(LOGIN)).isFalse();
    }

    @Test
    @DisplayName("armed, each bucket the fallback decided is marked, the others not; arming again forgets them")
    void perBucketUntilArmedAgain() {
        DecisionMarks marks = new DecisionMarks();
        marks.arm();
        marks.fallback(SEARCH);
        assertThat(marks.decided(SEARCH)).isTrue();
        assertThat(marks.decided(LOGIN)).as("decided by the store, or failed open").isFalse();
        marks.arm();
        assertThat(marks.decided(SEARCH)).isFalse();
    }

    @Test
    @DisplayName("another thread's marks are its own")
    void perThread() {
        DecisionMarks marks = new DecisionMarks();
        marks.arm();
        CompletableFuture.runAsync(() -> {
            marks.arm();
            marks.fallback(LOGIN);
        }).join();
        assertThat(marks.decided(LOGIN)).isFalse();
    }

    @Test
    @DisplayName("a block's refusal is marked apart from the fallback's decision, and forgotten when armed again")
    void blockedApart() {
        DecisionMarks marks = new DecisionMarks();
        marks.block(LOGIN);
        assertThat(marks.blocked(LOGIN)).as("unarmed").isFalse();
        marks.arm();
        marks.block(LOGIN);
        assertThat(marks.blocked(LOGIN)).isTrue();
        assertThat(marks.decided(LOGIN)).isFalse();
        assertThat(marks.blocked(SEARCH)).isFalse();
        marks.arm();
        assertThat(marks.blocked(LOGIN)).isFalse();
    }
}
