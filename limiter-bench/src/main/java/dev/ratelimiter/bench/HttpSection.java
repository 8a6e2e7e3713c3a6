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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.awaitility.Awaitility.await;

/**
 * Section 4: the example application on Payara Micro with the limiter on (in memory, the global filter's anonymous
 * bucket raised so nothing is refused, the RateLimit headers written) beside {@code ratelimiter.enabled=false}.
 *
 * <p>A steady measure (issue 30): a server's JIT takes a minute or more of load to settle, and two JVMs of one build
 * settle at rates a few percent apart, so the section starts {@link Mode#httpForks() several pairs} of servers in
 * turn, like JMH's forks. In each pair, both are warmed, in alternate rounds, until two consecutive rounds of each
 * agree within {@link #STEADY}; then {@link Mode#httpRounds()} rounds of each alternate, the first server of each
 * round swapped, never loading both at once. A pair's ratio is its two rounds' rates divided; the goal is on the
 * median of every pair's ratio, reported with its spread.
 *
 * <p>The full run loads them with {@code wrk}; the smoke run with a closed loop of the JDK's HTTP client, so
 * {@code ./mvnw verify} needs no wrk, and its servers are {@link SmokeHttpTarget}s, since two Payara Micro starts
 * alone outlast the smoke's 30 s (CONTRIBUTING.md#benchmarks); the rest of the section, from the servers' start to
 * the rows, is the same code in both runs.
 */
final class HttpSection {

    static final String PATH = "/api/projects";
    private static final int CONNECTIONS = 16;
    /** Two consecutive warm-up rounds of a server whose rates differ by at most this share are steady. */
    static final double STEADY = 0.03;
    /** A server using at most this share of one core is quiet: its JIT has compiled what the last round made hot. */
    static final double QUIET = 0.03;

    private HttpSection() {
    }

    static Section run(Mode mode, Path http) throws Exception {
        Path payara = http.resolve("payara-micro.jar");
        Path war = http.resolve("limiter-example.war");
        if (!mode.smoke() && (!Files.exists(payara) || !Files.exists(war))) {
            throw new IllegalStateException("missing " + payara + " or " + war + ": run through Maven ("
                    + "the module's pre-integration-test phase copies them)");
        }
        List<Row> rows = new ArrayList<>();
        List<Pair> pairs = new ArrayList<>();
        for (int fork = 1; fork <= mode.httpForks(); fork++) {
            try (Server on = Server.start(mode, payara, war, true);
                 Server off = Server.start(mode, payara, war, false)) {
                on.awaitReady(mode);
                off.awaitReady(mode);
                Warmup warmup = warmUp(mode, on, off);
                List<Pair> forkPairs = new ArrayList<>();
                for (int round = 0; round < mode.httpRounds(); round++) {
                    // The smoke run only passes through, one short look: its servers are still compiling, and CI
                    // waits for it.
                    Server.awaitQuiet(on, off, mode.smoke() ? Duration.ofMillis(100) : Duration.ofMinutes(1));
                    Figure onRate;
                    Figure offRate;
                    if ((round + fork) % 2 == 0) {
                        onRate = measure(mode, on, mode.httpRound());
                        offRate = measure(mode, off, mode.httpRound());
                    } else {
                        offRate = measure(mode, off, mode.httpRound());
                        onRate = measure(mode, on, mode.httpRound());
                    }
                    forkPairs.add(new Pair(onRate, offRate));
                }
                pairs.addAll(forkPairs);
                Pair median = median(forkPairs);
                Map<String, Double> details = new LinkedHashMap<>(median.on().details());
                details.put("warmup_rounds", (double) warmup.rounds());
                details.put("steady", warmup.steady() ? 1.0 : 0.0);
                details.put("not_quiet", (double) (on.notQuiet + off.notQuiet));
                rows.add(Row.of("server pair " + fork + ", the median of its " + forkPairs.size()
                                + " rounds: limiter on / ratelimiter.enabled=false",
                        new Figure(median.on().source(), median.on().value(), median.on().unit(), details),
                        median.off(), Goal.none()));
            }
        }
        Pair median = median(pairs);
        double[] ratios = pairs.stream().mapToDouble(Pair::ratio).sorted().toArray();
        Map<String, Double> spread = new LinkedHashMap<>();
        spread.put("pairs", (double) ratios.length);
        spread.put("ratio_min", ratios[0]);
        spread.put("ratio_q1", ratios[(ratios.length - 1) / 4]);
        spread.put("ratio_q3", ratios[(3 * (ratios.length - 1) + 3) / 4]);
        spread.put("ratio_max", ratios[ratios.length - 1]);
        rows.add(Row.of("every round, the median by ratio: limiter on / ratelimiter.enabled=false",
                new Figure(median.on().source(), median.on().value(), median.on().unit(), spread), median.off(),
                Goal.atLeast(30, 0.95, "HTTP: limiter on / off", "what JFR (execution and allocation "
                        + "samples) shows on Payara: the filter is about 10 % of a request's samples with the limiter "
                        + "on and 8 % with it off, so only about 4 % (the decision, the path check, the two header "
                        + "fields) separates the two servers, less than a round's spread; what both pay is mostly Weld "
                        + "creating the request-scoped RequestIdentity (about 6 KB allocated per request) and the "
                        + "built-in HttpServletRequest bean behind the peer address (1 to 2 KB)")));
        String generator = mode.smoke() ? "a closed loop of the JDK's HttpClient, " + CONNECTIONS + " threads"
                : "`wrk -t2 -c" + CONNECTIONS + " -d<round>s --latency`";
        String server = mode.smoke() ? "the smoke's stand-in for Payara Micro, `SmokeHttpTarget` (the JDK's HTTP "
                + "server, an in-memory decision of the client's address when on; `-Xmx512m`)" : "Payara Micro "
                + "(`-Xmx512m`)";
        return new Section("HTTP: the example on Payara Micro, limiter on vs off", "`GET " + PATH + "` "
                + "(anonymous, through the global filter: resolve the client address, normalize, hash, count in "
                + "memory, write the RateLimit headers) on " + server + ", loaded by " + generator + " on "
                + "the same machine. " + mode.httpForks() + " pair(s) of servers, one pair at a time, like JMH's "
                + "forks; each server of a pair is warmed with rounds of " + mode.httpWarmup().toSeconds() + " s, "
                + "alternating with the other: at least " + mode.httpWarmupMinRounds() + " rounds (a JIT settles "
                + "through plateaus), then until two consecutive rounds agree within " + Math.round(STEADY * 100)
                + " % (at most " + mode.httpWarmupMaxRounds() + " rounds each: `steady` 0 says it did not); then "
                + mode.httpRounds() + " rounds of " + mode.httpRound().toSeconds() + " s of each, alternating which "
                + "goes first and never loading both at once, each round once both servers use at most "
                + Math.round(QUIET * 100) + " % of a core (their JIT idle; `not_quiet` counts rounds that waited a "
                + "minute in vain). A round's ratio divides the two servers' rates of that "
                + "round; the goal is on the median ratio of every round of every pair (the row shows that round's "
                + "rates and the ratios' spread: minimum, quartiles, maximum). Figures in requests/s.", rows);
    }

    /** One round of each server. */
    private record Pair(Figure on, Figure off) {
        double ratio() {
            return on.value() / off.value();
        }
    }

    /** The pair of median ratio; {@code pairs} has an odd size in the full run, so it is a measured pair. */
    private static Pair median(List<Pair> pairs) {
        List<Pair> sorted = new ArrayList<>(pairs);
        sorted.sort(java.util.Comparator.comparingDouble(Pair::ratio));
        return sorted.get((sorted.size() - 1) / 2);
    }

    /** How a pair's warm-up went: rounds per server, and whether both became steady within the allowed rounds. */
    private record Warmup(int rounds, boolean steady) {
    }

    private static Warmup warmUp(Mode mode, Server on, Server off) throws Exception {
        double lastOn = Double.NaN;
        double lastOff = Double.NaN;
        boolean onSteady = false;
        boolean offSteady = false;
        int rounds = 0;
        // At least the minimum: a JIT settles through plateaus, where two rounds agree long before the server is warm.
        while (rounds < mode.httpWarmupMinRounds()
                || rounds < mode.httpWarmupMaxRounds() && !(onSteady && offSteady)) {
            rounds++;
            double rateOn = measure(mode, on, mode.httpWarmup()).value();
            double rateOff = measure(mode, off, mode.httpWarmup()).value();
            onSteady = Math.abs(rateOn - lastOn) <= STEADY * Math.max(rateOn, lastOn);
            offSteady = Math.abs(rateOff - lastOff) <= STEADY * Math.max(rateOff, lastOff);
            lastOn = rateOn;
            lastOff = rateOff;
        }
        return new Warmup(rounds, onSteady && offSteady);
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

    /**
     * One server on a free port: Payara Micro serving the example at the root context, or in the smoke run its
     * stand-in {@link SmokeHttpTarget}, which starts in a second where Payara Micro takes twenty.
     */
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

        /** Rounds measured after {@link #awaitQuiet} gave up waiting for this server's CPU to fall quiet. */
        int notQuiet;

        /**
         * Waits, up to {@code most}, until neither server uses more than {@link #QUIET} of a core over a second (over
         * {@code most} if shorter): a server not under load may still be compiling what its last round made hot, on
         * the cores the other is measured on.
         */
        static void awaitQuiet(Server one, Server other, Duration most) throws InterruptedException {
            long deadline = System.nanoTime() + most.toNanos();
            Duration look = most.compareTo(Duration.ofSeconds(1)) < 0 ? most : Duration.ofSeconds(1);
            while (true) {
                Duration oneBefore = one.cpu();
                Duration otherBefore = other.cpu();
                long start = System.nanoTime();
                java.util.concurrent.locks.LockSupport.parkNanos(look.toNanos());
                double window = System.nanoTime() - start;
                boolean oneQuiet = one.cpu().minus(oneBefore).toNanos() <= QUIET * window;
                boolean otherQuiet = other.cpu().minus(otherBefore).toNanos() <= QUIET * window;
                if (oneQuiet && otherQuiet) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    one.notQuiet += oneQuiet ? 0 : 1;
                    other.notQuiet += otherQuiet ? 0 : 1;
                    return;
                }
            }
        }

        /**
         * The process's CPU time so far.
         *
         * @throws IllegalStateException where the platform does not report it (Linux does): waiting for quiet
         *                               would otherwise pass at once, unseen
         */
        private Duration cpu() {
            return process.toHandle().info().totalCpuDuration().orElseThrow(() -> new IllegalStateException(
                    "this platform reports no CPU time of " + name + "'s process; the HTTP section waits on it"));
        }

        static Server start(Mode mode, Path payara, Path war, boolean limiter) throws IOException {
            int port = RedisServer.freePort();
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            List<String> command = mode.smoke()
                    ? List.of(java, "-Xmx512m", "-cp", System.getProperty("java.class.path"),
                            SmokeHttpTarget.class.getName(), String.valueOf(port), limiter ? "on" : "off")
                    : List.of(java, "-Xmx512m", limiter ? "-Dratelimiter.buckets.api-anonymous.limit=1000000000"
                                    : "-Dratelimiter.enabled=false", "-jar", payara.toString(), "--deploy",
                            war.toString(), "--contextroot", "/", "--port", String.valueOf(port), "--nocluster");
            Path log = Files.createTempFile("ratelimiter-bench-http-", ".log");
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile())
                    .start();
            return new Server(limiter ? "limiter on" : "ratelimiter.enabled=false", port, process, log);
        }

        String url() {
            return "http://127.0.0.1:" + port + PATH;
        }

        /** Until the server answers; the smoke's stand-in starts in a second, so it is asked every 50 ms. */
        void awaitReady(Mode mode) {
            HttpClient client = HttpClient.newHttpClient();
            HttpRequest request = HttpRequest.newBuilder(URI.create(url())).timeout(Duration.ofSeconds(5)).build();
            try {
                await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(mode.smoke() ? 50 : 500))
                        .ignoreExceptions()
                        .failFast(name + ": its server exited", () -> !process.isAlive())
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
