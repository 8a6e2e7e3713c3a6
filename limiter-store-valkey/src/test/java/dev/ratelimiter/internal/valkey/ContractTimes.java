package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.contract.ContractTime;

import java.time.Duration;

import static org.awaitility.Awaitility.await;

/** Time for backends whose store times the windows: real time passes, waited for with Awaitility. */
final class ContractTimes {

    private ContractTimes() {
    }

    static ContractTime real() {
        return amount -> {
            long until = System.nanoTime() + amount.toNanos();
            await().atMost(amount.plusSeconds(5)).pollInterval(Duration.ofMillis(20))
                    .until(() -> System.nanoTime() >= until);
        };
    }
}
