package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.contract.ContractTime;
import dev.ratelimiter.contract.ManualClock;

import java.time.Duration;

import static org.awaitility.Awaitility.await;

/** Time for backends whose store times the windows: real time passes, waited for with Awaitility. */
final class ContractTimes {

    private ContractTimes() {
    }

    /**
     * Real time, waited for, and the library's clock moved on by as much: the store times its windows by its server's
     * clock, and works a calendar window's boundary out from the library's ({@code ManualClock}, set by the case).
     */
    static ContractTime real(ManualClock clock) {
        ContractTime real = real();
        return amount -> {
            real.advance(amount);
            clock.advance(amount);
        };
    }

    static ContractTime real() {
        return amount -> {
            long until = System.nanoTime() + amount.toNanos();
            await().atMost(amount.plusSeconds(5)).pollInterval(Duration.ofMillis(20))
                    .until(() -> System.nanoTime() >= until);
        };
    }
}
