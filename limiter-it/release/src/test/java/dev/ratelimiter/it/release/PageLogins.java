package dev.ratelimiter.it.release;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * docs/servers.md as the walkthroughs check it: the snippets the page shows, and its logins sent to an application
 * the way the page's reader sends them.
 */
final class PageLogins {

    /** The page's curl loop: a right password, three wrong ones, the right one again. */
    private static final List<String> PASSWORDS = List.of("wonderland", "wrong", "wrong", "wrong", "wonderland");
    /** The walkthroughs' curl loop, the one sh block of the page that logs in. */
    private static final Pattern LOOP = Pattern.compile("```sh\\n(for password in .*?)\\n```", Pattern.DOTALL);
    /** Every answer's: the global limit per address (the resource is under /api/), then the login bucket's. */
    private static final String POLICY = "\"api-anonymous\";q=120;w=60, \"login\";q=3;w=60";

    private final Path page;

    /** @param page docs/servers.md */
    PageLogins(Path page) {
        this.page = page;
    }

    /** The page says what the test does: each snippet is on docs/servers.md verbatim. */
    void assertShows(String... snippets) throws IOException {
        String text = Files.readString(page);
        String loop = "for password in " + String.join(" ", PASSWORDS) + "; do";
        assertThat(text).as("docs/servers.md").contains(snippets)
                .contains(loop, "prints `200 401 401 401 429`", "`RateLimit-Policy: " + POLICY + "`");
    }

    /**
     * Waits for readiness, then runs the page's own curl loop (docs/servers.md#a-new-quarkus-application) with bash
     * against {@code port}, as the reader does, and checks that it prints what the page says; then, for the reason
     * phrase and the headers the page names, four wrong logins of another account through {@link JsonLogin}.
     */
    void assertLogins(int port, String readiness, Process server, Path log, Duration within,
                              String refusal) throws IOException {
        assertLogins(port, URI.create("http://127.0.0.1:" + port + readiness), server, log, within, refusal);
    }

    /** As above, with readiness at {@code readiness}, on another port than the application's (WildFly's 9990). */
    void assertLogins(int port, URI readiness, Process server, Path log, Duration within, String refusal)
            throws IOException {
        String base = "http://127.0.0.1:" + port;
        await().atMost(within).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                .failFast(() -> assertThat(server.isAlive())
                        .as(() -> "the application exited, log " + log + ":\n" + MavenRun.tail(log)).isTrue())
                .until(() -> JsonLogin.status(readiness).equals("200 OK"));
        Matcher loop = LOOP.matcher(Files.readString(page));
        assertThat(loop.find()).as("docs/servers.md shows the curl loop").isTrue();
        String command = loop.group(1).replaceAll("http://localhost:\\d+/", base + "/");
        Process curl = new ProcessBuilder("bash", "-c", command).redirectErrorStream(true).start();
        String printed = new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(printed.strip()).as("the page's curl loop: %s", command).isEqualTo("200 401 401 401 429");
        List<String> answers = PASSWORDS.subList(1, PASSWORDS.size()).stream()
                .map(password -> JsonLogin.attempt(base, "carol", "not-" + password)).toList();
        assertThat(answers).containsExactly("401 Unauthorized; " + POLICY, "401 Unauthorized; " + POLICY,
                "401 Unauthorized; " + POLICY, refusal + "; " + POLICY);
    }
}
