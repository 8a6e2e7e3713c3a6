package dev.ratelimiter.it;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * An independent client's reading of a response's rate limit fields: the npm package {@code ratelimit-header-parser}
 * ({@link #VERSION}), the parser express-rate-limit's authors publish for API clients, run by Node.js on the
 * response's headers. Installed with npm into {@code target/} at first use; without {@code node} and {@code npm} on
 * the path the test fails, saying what to install.
 */
public final class RateLimitHeaderParser {

    /** The version the issue tried (the only one published). */
    public static final String VERSION = "0.1.0";

    private static final Path HOME = Path.of("target", "ratelimit-header-parser").toAbsolutePath();
    private static final String SCRIPT = """
            const { parseRateLimit } = require('ratelimit-header-parser');
            let input = '';
            process.stdin.on('data', chunk => input += chunk);
            process.stdin.on('end', () => {
              const parsed = parseRateLimit(JSON.parse(input)) || {};
              const reset = parsed.reset instanceof Date && !isNaN(parsed.reset) ? parsed.reset.getTime() : null;
              const number = value => Number.isFinite(value) ? value : null;
              console.log(JSON.stringify({ limit: number(parsed.limit), remaining: number(parsed.remaining),
                reset_epoch_millis: reset }));
            });
            """;

    private RateLimitHeaderParser() {
    }

    /**
     * What the parser reads from the response's headers.
     *
     * @return {@code limit}, {@code remaining} and {@code reset_epoch_millis}, each a number or {@code null} when the
     *         parser found none
     */
    public static synchronized JsonObject parse(HttpResponse<?> response) {
        install();
        JsonObjectBuilder headers = Json.createObjectBuilder();
        // node's own responses name headers in lower case and join repeated ones with ", ": so does this.
        response.headers().map().forEach((name, values) -> headers.add(name.toLowerCase(java.util.Locale.ROOT),
                String.join(", ", values)));
        String output = run(List.of("node", "-e", SCRIPT), headers.build().toString());
        return Json.createReader(new StringReader(output)).readObject();
    }

    private static void install() {
        if (Files.isDirectory(HOME.resolve("node_modules/ratelimit-header-parser"))) {
            return;
        }
        try {
            Files.createDirectories(HOME);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        run(List.of("npm", "install", "--no-audit", "--no-fund", "--prefix", HOME.toString(),
                "ratelimit-header-parser@" + VERSION), "");
    }

    private static String run(List<String> command, String stdin) {
        ProcessBuilder builder = new ProcessBuilder(command).directory(HOME.toFile());
        builder.redirectError(ProcessBuilder.Redirect.INHERIT);
        try {
            Process process = builder.start();
            process.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
            process.getOutputStream().close();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new AssertionError(String.join(" ", command.subList(0, 2)) + " failed: " + output);
            }
            return output.strip();
        } catch (IOException e) {
            throw new AssertionError(command.get(0) + " could not run: install Node.js and npm (Debian: apt-get "
                    + "install nodejs npm; bash .ci/run does); the older header fields are checked with the npm "
                    + "package ratelimit-header-parser", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
