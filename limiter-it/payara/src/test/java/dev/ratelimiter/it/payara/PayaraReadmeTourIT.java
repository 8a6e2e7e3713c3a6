package dev.ratelimiter.it.payara;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** README.md#a-five-minute-tour, every command in page order. */
class PayaraReadmeTourIT extends TourDeployment {

    @Test
    @DisplayName("every command of README.md#a-five-minute-tour gives the answer the page shows")
    void readme() {
        assertTourAsWritten("README.md", "## A five-minute tour");
    }
}
