package dev.ratelimiter.internal.core.chain;

import java.lang.ref.WeakReference;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;

import dev.ratelimiter.spi.Sweepable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class PeriodicSweeperTest {

    @Test
    @DisplayName("a sweep that throws, an Error included, is logged and the next sweeps still run on schedule")
    void survivesAnyThrowable() {
        AtomicInteger sweeps = new AtomicInteger();
        Sweepable failingTwice = () -> {
            int sweep = sweeps.incrementAndGet();
            if (sweep == 1) {
                throw new NoClassDefFoundError("org/postgresql/util/PSQLException");
            }
            if (sweep == 2) {
                throw new IllegalStateException("pool closed");
            }
            return 0;
        };
        try (PeriodicSweeper sweeper = new PeriodicSweeper(failingTwice, Duration.ofMillis(10))) {
            await().atMost(Duration.ofSeconds(10)).until(() -> sweeps.get() >= 4);
        }
        assertThat(sweeps.get()).as("sweeps after an Error and an exception").isGreaterThanOrEqualTo(4);
    }

    @Test
    @DisplayName("with a server's thread factory, sweeps run on its thread; closed, the thread ends and nothing "
            + "keeps the store (an undeployed application is not held until a sweep's time)")
    void threadFactoryThreadEndsOnClose() {
        List<Thread> started = new CopyOnWriteArrayList<>();
        ThreadFactory managed = runnable -> {
            Thread thread = new Thread(runnable, "managed-" + started.size());
            thread.setDaemon(true);
            started.add(thread);
            return thread;
        };
        AtomicInteger sweeps = new AtomicInteger();
        Set<String> sweptOn = ConcurrentHashMap.newKeySet();
        Sweepable store = () -> {
            sweptOn.add(Thread.currentThread().getName());
            return sweeps.incrementAndGet();
        };
        WeakReference<Sweepable> released = new WeakReference<>(store);
        PeriodicSweeper sweeper = new PeriodicSweeper(store, Duration.ofMillis(10), Optional.of(managed));
        await().atMost(Duration.ofSeconds(10)).until(() -> sweeps.get() >= 2);
        assertThat(sweptOn).as("threads the sweeps ran on").containsExactly("managed-0");

        sweeper.close();
        store = null;
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            System.gc();
            return started.stream().noneMatch(Thread::isAlive) && released.get() == null;
        });
    }
}
