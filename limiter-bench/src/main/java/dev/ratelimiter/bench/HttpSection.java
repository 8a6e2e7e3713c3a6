package dev.ratelimiter.bench;

import dev.ratelimiter.internal.valkey.RedisServer;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.awaitility.Awaitility.await;

/**
 * Section 4: the example application on Payara Micro, twice at once: the limiter on (in memory, the global
 * filter's anonymous bucket raised so nothing is refused) and {@code ratelimiter.enabled=false}. After a warm-up
 * of each, rounds alternate between the two. The full run loads them with {@code wrk}; the smoke run with a
 * closed loop of the JDK's HTTP client, so {@code ./mvnw verify} needs no wrk.
 */
final class HttpSection {

    private static final String PATH = "/api/projects";
    private static final int CONNECTIONS = 16;

    private HttpSection() {
    }

    static Section run(Mode mode, Path http) throws Exception {
        Path payara = http.resolve("payara-micro.jar");
        Path war = http.resolve("limiter-example.war");
        if (!Files.exists(payara) || !Files.exists(war)) {
            throw new IllegalStateException("missing " + payara + " or " + war + ": run through Maven ("
                    + "the module's pre-integration-test phase copies them)");
        }
        try (Server on = Server.start(payara, war, "limiter on",
                "-Dratelimiter.buckets.api-anonymous.limit=1000000000");
             Server off = Server.start(payara, war, "ratelimiter.enabled=false", "-Dratelimiter.enabled=false")) {
            on.awaitReady();
            off.awaitReady();
            measure(mode, on, mode.httpWarmup());
            measure(mode, off, mode.httpWarmup());
            List<Figure> onRounds = new ArrayList<>();
            List<Figure> offRounds = new ArrayList<>();
            for (int round = 0; round < mode.httpRounds(); round++) {
                boolean onFirst = round % 2 == 0;
                if (onFirst) {
                    onRounds.add(measure(mode, on, mode.httpRound()));
                    offRounds.add(measure(mode, off, mode.httpRound()));
                } else {
                    offRounds.add(measure(mode, off, mode.httpRound()));
                    onRounds.add(measure(mode, on, mode.httpRound()));
                }
            }
            List<Row> rows = new ArrayList<>();
            for (int round = 0; round < onRounds.size(); round++) {
                rows.add(Row.of("round " + (round + 1) + ": limiter on / ratelimiter.enabled=false",
                        onRounds.get(round), offRounds.get(round), Goal.none()));
            }
            rows.add(Row.of("all rounds (mean of rounds): limiter on / ratelimiter.enabled=false",
                    mean("limiter on", onRounds), mean("ratelimiter.enabled=false", offRounds), Goal.none()));
            String generator = mode.smoke() ? "a closed loop of the JDK's HttpClient, " + CONNECTIONS + " threads"
                    : "`wrk -t2 -c" + CONNECTIONS + " -d" + mode.httpRound().toSeconds() + "s --latency`";
            return new Section("HTTP: the example on Payara Micro, limiter on vs off", "`GET " + PATH + "` "
                    + "(anonymous, through the global filter: normalize, hash, count in memory, headers) on Payara "
                    + "Micro (`-Xmx512m`, both servers running at once), loaded by " + generator + " after a "
                    + mode.httpWarmup().toSeconds() + " s warm-up of each; " + mode.httpRounds() + " rounds of "
                    + mode.httpRound().toSeconds() + " s, alternating which server goes first. Figures in "
                    + "requests/s.", rows);
        }
    }

    private static Figure mean(String source, List<Figure> rounds) {
        return new Figure(source, rounds.stream().mapToDouble(Figure::value).average().orElseThrow(), "requests/s");
    }

    private static Figure measure(Mode mode, Server server, Duration duration) throws Exception {
        return mode.smoke() ? jdkLoop(server, duration) : wrk(server, duration);
    }

    private static final Pattern RATE = Pattern.compile("Requests/sec:\\s+([0-9.]+)");
    private static final Pattern P50 = Pattern.compile("\\s50%\\s+([0-9.]+)(us|ms|s)");
    private static final Pattern P99 = Pattern.compile("\\s99%\\s+([0-9.]+)(us|ms|s)");
    private static final Pattern NON_2XX = Pattern.compile("Non-2xx or 3xx responses: (\\d+)");

    private static Figure wrk(Server server, Duration duration) throws Exception {
        String output = Tools.run(List.of("wrk", "-t2", "-c" + CONNECTIONS, "-d" + duration.toSeconds() + "s",
                "--latency", server.url()));
        Matcher rate = RATE.matcher(output);
        if (!rate.find()) {
            throw new IllegalStateException("wrk printed no rate: " + output);
        }
        Matcher non2xx = NON_2XX.matcher(output);
        if (non2xx.find()) {
            throw new IllegalStateException(server.name + " answered " + non2xx.group(1) + " requests with an "
                    + "error status: " + output);
        }
        return new Figure(server.name, Double.parseDouble(rate.group(1)), "requests/s",
                Map.of("p50_us", micros(P50.matcher(output)), "p99_us", micros(P99.matcher(output))));
    }

    private static double micros(Matcher latency) {
        if (!latency.find()) {
            return Double.NaN;
        }
        double value = Double.parseDouble(latency.group(1));
        return switch (latency.group(2)) {
            case "us" -> value;
            case "ms" -> value * 1e3;
            default -> value * 1e6;
        };
    }

    private static Figure jdkLoop(Server server, Duration duration) throws Exception {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        HttpRequest request = HttpRequest.newBuilder(URI.create(server.url())).build();
        Figure figure = ClosedLoop.run(server.name, new Load(CONNECTIONS, 1, Duration.ZERO, duration),
                thread -> key -> client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200);
        if (figure.details().get("not_decided") > 0) {
            throw new IllegalStateException(server.name + " answered " + figure.details().get("not_decided")
                    + " requests with an error status");
        }
        return new Figure(server.name, figure.value(), "requests/s", Map.of(
                "p50_us", figure.details().get("p50_us"), "p99_us", figure.details().get("p99_us")));
    }

    /** One Payara Micro serving the example at the root context on a free port. */
    private static final class Server implements AutoCloseable {
        final String name;
        final int port;
        final Process process;
        final Path log;

        private Server(String name, int port, Process process, Path log) {
            this.name = name;
            this.port = port;
            this.process = process;
            this.log = log;
        }

        static Server start(Path payara, Path war, String name, String property) throws IOException {
            int port = RedisServer.freePort();
            Path log = Files.createTempFile("ratelimiter-bench-payara-", ".log");
            Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx512m", property, "-jar", payara.toString(), "--deploy", war.toString(),
                    "--contextroot", "/", "--port", String.valueOf(port), "--nocluster")
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            return new Server(name, port, process, log);
        }

        String url() {
            return "http://127.0.0.1:" + port + PATH;
        }

        void awaitReady() {
            HttpClient client = HttpClient.newHttpClient();
            HttpRequest request = HttpRequest.newBuilder(URI.create(url())).timeout(Duration.ofSeconds(5)).build();
            try {
                await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                        .failFast(name + ": Payara Micro exited", () -> !process.isAlive())
                        .until(() -> client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200);
            } catch (RuntimeException | Error e) {
                throw new IllegalStateException(name + " did not serve " + url() + "; log: " + log, e);
            }
        }

        @Override
        public void close() throws InterruptedException {
            process.destroy();
            if (!process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        }
    }
}
