package dev.ratelimiter.internal.core.monitor;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

class BackendMonitorTest {

    @Test
    @DisplayName("while degraded, a later failure (a failed probe) becomes lastError; since stays, no listener hears it")
    void latestFailureWhileDegraded() {
        BackendMonitor monitor = new BackendMonitor("postgres", InstantSource.fixed(Instant.EPOCH),
                RateLimiterMetrics.NONE);
        List<BackendStatus> changes = new CopyOnWriteArrayList<>();
        monitor.onChange(changes::add);
        monitor.failure(new SQLException("FATAL: terminating connection due to administrator command", "57P01"));
        monitor.degraded();

        monitor.failure(new SQLException("ERROR: cannot execute UPDATE in a read-only transaction", "25006"));

        assertThat(monitor.status().state()).isEqualTo(BackendState.DEGRADED);
        assertThat(monitor.status().lastError()).hasValue(
                "SQLException [SQLSTATE 25006]: ERROR: cannot execute UPDATE in a read-only transaction");
        assertThat(monitor.status().since()).isEqualTo(Instant.EPOCH);
        assertThat(changes).as("state changes heard").hasSize(1);
    }

    @Test
    @DisplayName("while ok, failures leave the status without an error")
    void okStaysWithoutError() {
        BackendMonitor monitor = new BackendMonitor("postgres", InstantSource.system(), RateLimiterMetrics.NONE);
        monitor.failure(new SQLException("ERROR: canceling statement due to statement timeout", "57014"));
        assertThat(monitor.status().state()).isEqualTo(BackendState.OK);
        assertThat(monitor.status().lastError()).isEmpty();
        assertThat(monitor.errors()).isEqualTo(1);
    }

    @Test
    @DisplayName("a listener that throws, an Error included, neither reaches the caller nor keeps the next listeners or "
            + "later changes from being heard")
    void throwingListenerIsContained() {
        BackendMonitor monitor = new BackendMonitor("valkey", InstantSource.system(), RateLimiterMetrics.NONE);
        List<BackendState> heard = new CopyOnWriteArrayList<>();
        monitor.onChange(status -> {
            throw new AssertionError("an application's observer that fails");
        });
        monitor.onChange(status -> {
            throw new IllegalStateException("another");
        });
        monitor.onChange(status -> heard.add(status.state()));

        monitor.degraded();
        monitor.recovered();
        monitor.degraded();

        assertThat(heard).containsExactly(BackendState.DEGRADED, BackendState.OK, BackendState.DEGRADED);
    }
}
