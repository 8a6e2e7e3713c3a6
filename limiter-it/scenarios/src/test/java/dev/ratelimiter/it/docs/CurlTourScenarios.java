package dev.ratelimiter.it.docs;

import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;

/**
 * The curl tours of the docs run as written against the example, on a deployment of its own (the tour's counts,
 * such as {@code api-anonymous}'s attempts left, start from a fresh one): docs/tour.md whole, then
 * README.md#a-five-minute-tour. A server module extends it, deploys the example unchanged and returns its root.
 *
 * <p>The tours show Payara Micro's answers (its reason phrase {@code CUSTOM}), so only the Payara module runs them.
 * Each tour must run within one minute of its first request: its attempts left are counted in one window of the
 * global limit.
 */
public abstract class CurlTourScenarios {

    /** The deployment's root, ending with {@code /}. */
    protected abstract URI baseUri();

    /** The page whose tour this deployment runs, relative to the checkout. */
    protected abstract String page();

    /** The heading of the tour's section in {@link #page()}, or null for the whole page. */
    protected abstract String section();

    @Test
    @DisplayName("every command of the tour gives the answer the page shows")
    void tourAnswersAsWritten() {
        Path page = Path.of(System.getProperty("ratelimiter.checkout")).resolve(page());
        List<CurlTour.Step> steps = CurlTour.steps(page, section());
        SoftAssertions softly = new SoftAssertions();
        for (CurlTour.Step step : steps) {
            softly.assertThat(CurlTour.normalize(CurlTour.run(step, baseUri())))
                    .as("%s: %s", page(), step.command())
                    .isEqualTo(CurlTour.normalize(step.answer()));
        }
        softly.assertAll();
    }
}
