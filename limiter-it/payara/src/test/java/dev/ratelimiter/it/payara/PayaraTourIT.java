package dev.ratelimiter.it.payara;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** docs/tour.md, every command in page order. */
class PayaraTourIT extends TourDeployment {

    @Test
    @DisplayName("every command of docs/tour.md gives the answer the page shows")
    void tour() {
        assertTourAsWritten("docs/tour.md", null);
    }
}
