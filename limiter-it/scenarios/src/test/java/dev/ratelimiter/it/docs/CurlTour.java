package dev.ratelimiter.it.docs;

import org.assertj.core.api.SoftAssertions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A page's curl walkthrough as a reader runs it: each {@code sh} block of the page (or of one of its sections),
 * in page order, with the fenced block right after it as the answer the page promises. A block that starts the
 * example ({@code mvnw}) is left out: the test deploys the example itself.
 *
 * <p>The commands run in {@code bash}, as the page tells the reader to, with the page's
 * {@code http://localhost:8080/} replaced by the deployment's root, and the page's file of live limits
 * ({@value #PAGE_LIMITS_FILE}, docs/live-limits.md) by the deployment's. Answers are compared after {@link #normalize}:
 * what changes from run to run (a token, an instant, the seconds left in a window) is masked, nothing else.
 */
public final class CurlTour {

    private static final Pattern BLOCK = Pattern.compile("(?m)^```(\\w*)\\n(.*?)\\n```", Pattern.DOTALL);
    /** The headers the tour says it leaves out: Payara writes them on every response. */
    private static final Pattern LEFT_OUT =
            Pattern.compile("(?m)^(Server|Content-Length|X-Frame-Options|Connection):.*\\n?");
    private static final String PAGE_ROOT = "http://localhost:8080/";
    /** The file the pages start the example with, as {@code RATELIMITER_RELOAD_FILE}. */
    public static final String PAGE_LIMITS_FILE = "/tmp/example-limits.properties";

    /** One command of the page and the answer the page shows for it. */
    public record Step(String command, String answer) {
    }

    private CurlTour() {
    }

    /**
     * The steps of {@code page}, or of its section under the heading {@code section} (up to the next heading of
     * that level) when not null.
     *
     * @throws IllegalArgumentException if the section does not exist or holds no step
     */
    public static List<Step> steps(Path page, String section) {
        String text = read(page);
        if (section != null) {
            int start = text.indexOf("\n" + section + "\n");
            if (start < 0) {
                throw new IllegalArgumentException(page + " has no heading '" + section + "'");
            }
            String level = section.substring(0, section.indexOf(' ') + 1);
            int end = text.indexOf("\n" + level, start + section.length() + 1);
            text = text.substring(start, end < 0 ? text.length() : end);
        }
        List<Step> steps = new ArrayList<>();
        List<String[]> blocks = new ArrayList<>();
        Matcher matcher = BLOCK.matcher(text);
        while (matcher.find()) {
            blocks.add(new String[] {matcher.group(1), matcher.group(2)});
        }
        for (int i = 0; i < blocks.size(); i++) {
            if (blocks.get(i)[0].equals("sh") && !blocks.get(i)[1].contains("mvnw")) {
                if (i + 1 == blocks.size() || blocks.get(i + 1)[0].equals("sh")) {
                    throw new IllegalArgumentException(page + ": a command without its answer:\n" + blocks.get(i)[1]);
                }
                steps.add(new Step(blocks.get(i)[1], blocks.get(i + 1)[1]));
                i++;
            }
        }
        if (steps.isEmpty()) {
            throw new IllegalArgumentException(page + " (" + section + ") shows no command");
        }
        return steps;
    }

    /**
     * Runs {@code step}'s command in bash against {@code root} (ending with {@code /}), with {@code limitsFile} for
     * the page's {@value #PAGE_LIMITS_FILE}, and returns what it printed.
     *
     * @throws IllegalStateException if the command does not end within 60 seconds or exits other than 0
     */
    public static String run(Step step, URI root, Path limitsFile) {
        String command = step.command().replace(PAGE_ROOT, root.toString())
                .replace(PAGE_LIMITS_FILE, limitsFile.toString());
        try {
            Process process = new ProcessBuilder("bash", "-c", command)
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            byte[] out = process.getInputStream().readAllBytes();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("did not end within 60 s: " + step.command());
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException("exit " + process.exitValue() + ": " + step.command());
            }
            return new String(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * An answer with what differs between runs masked: line ends, the headers the page leaves out, a login's
     * token, the readiness check's {@code since}, and the seconds until a window ends ({@code t=} of
     * {@code RateLimit}, {@code Retry-After}, the problem's {@code retryAfter} and its detail's "Retry after", and a
     * calendar window's {@code reset_seconds} in {@code /api/usage}, which depend on the day the tour runs).
     * Statuses, bucket names, limits and attempts left stay as they are.
     */
    public static String normalize(String answer) {
        String text = answer.replace("\r", "");
        text = LEFT_OUT.matcher(text).replaceAll("");
        text = text.replaceAll("\"token\":\"[^\"]*\"", "\"token\":\"<token>\"")
                .replaceAll("\"since\":\"[^\"]*\"", "\"since\":\"<instant>\"")
                .replaceAll(";t=\\d+", ";t=<s>")
                .replaceAll("Retry-After: \\d+", "Retry-After: <s>")
                .replaceAll("\"retryAfter\":\\d+", "\"retryAfter\":<s>")
                .replaceAll("Retry after \\d+ s", "Retry after <s> s")
                .replaceAll("(\"window\":\"(?:hour|day|week|month)\"[^}]*\"reset_seconds\":)\\d+", "$1<s>");
        return text.strip();
    }

    /**
     * Runs every step of {@code page} (relative to the checkout, system property {@code ratelimiter.checkout}), or of
     * its {@code section}, against {@code root} and the deployment's file of live limits {@code limitsFile}, and
     * fails listing each answer that differs from the page's.
     */
    public static void assertAnswersAsWritten(String page, String section, URI root, Path limitsFile) {
        Path file = Path.of(System.getProperty("ratelimiter.checkout")).resolve(page);
        SoftAssertions softly = new SoftAssertions();
        for (Step step : steps(file, section)) {
            softly.assertThat(normalize(run(step, root, limitsFile))).as("%s: %s", page, step.command())
                    .isEqualTo(normalize(step.answer()));
        }
        softly.assertAll();
    }

    private static String read(Path page) {
        try {
            return Files.readString(page);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
