package dev.ratelimiter.it.payara;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** docs/live-limits.md#an-example-with-curl, every command in page order, on a deployment of its own. */
class PayaraLiveLimitsTourIT extends TourDeployment {

    @Test
    @DisplayName("every command of docs/live-limits.md#an-example-with-curl gives the answer the page shows")
    void liveLimits() {
        assertTourAsWritten("docs/live-limits.md", "## An example with curl");
    }
}
