package dev.ratelimiter.internal.core.monitor;

import dev.ratelimiter.Bucket;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/** The fallback's marks for the trace: per bucket, per thread, and only on a thread the decider armed. */
class FallbackMarksTest {

    private static final Bucket LOGIN = Bucket.of("login", 5, Duration.ofMinutes(15));
    private static final Bucket SEARCH = Bucket.of("search", 10, Duration.ofMinutes(1));

    @Test
    @DisplayName("unarmed, a fallback decision leaves nothing: a thread that does not trace keeps no marks")
    void unarmedRecordsNothing() {
        FallbackMarks marks = new FallbackMarks();
        marks.fallback(LOGIN);
        assertThat(marks.decided(LOGIN)).isFalse();
    }

    @Test
    @DisplayName("armed, each bucket the fallback decided is marked, the others not; arming again forgets them")
    void perBucketUntilArmedAgain() {
        FallbackMarks marks = new FallbackMarks();
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
        FallbackMarks marks = new FallbackMarks();
        marks.arm();
        CompletableFuture.runAsync(() -> {
            marks.arm();
            marks.fallback(LOGIN);
        }).join();
        assertThat(marks.decided(LOGIN)).isFalse();
    }
}
