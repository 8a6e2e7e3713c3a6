package dev.ratelimiter.bench;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class PgbenchProgressTest {

    /** pgbench 15, 64 clients, -T 10 -P 1, on the benchmark machine: a cold first second, then warm. */
    private static final String SIXTY_FOUR_CLIENTS = """
            pgbench (15.20 (Debian 15.20-0+deb12u1))
            progress: 1.1 s, 27.6 tps, lat 216.470 ms stddev 110.649, 0 failed
            progress: 2.0 s, 5674.0 tps, lat 11.411 ms stddev 19.508, 0 failed
            progress: 3.0 s, 6474.6 tps, lat 8.783 ms stddev 4.022, 0 failed
            progress: 4.0 s, 7109.4 tps, lat 7.988 ms stddev 3.320, 0 failed
            transaction type: /tmp/ratelimiter-pgbench-1.sql
            number of clients: 64
            tps = 4821.435295 (without initial connection time)
            """;

    @Test
    void the_rate_is_the_mean_of_the_seconds_after_the_cold_start() {
        PgbenchProgress steady = PgbenchProgress.steady(SIXTY_FOUR_CLIENTS, 2);

        assertThat(steady.intervals()).isEqualTo(2);
        assertThat(steady.tps()).isCloseTo((6474.6 + 7109.4) / 2, within(1e-9));
        assertThat(steady.latencyMillis()).isCloseTo((8.783 + 7.988) / 2, within(1e-9));
        assertThat(PgbenchProgress.steady(SIXTY_FOUR_CLIENTS, 1).intervals())
                .as("the second that starts at 1.0 s counts with one second left out").isEqualTo(3);
    }

    @Test
    void a_run_that_never_got_past_its_cold_start_is_an_error_not_a_rate() {
        assertThatThrownBy(() -> PgbenchProgress.steady(SIXTY_FOUR_CLIENTS, 4))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("no progress after its first 4");
        assertThatThrownBy(() -> PgbenchProgress.steady("tps = 5.0 (without initial connection time)", 0))
                .isInstanceOf(IllegalStateException.class);
    }
}
