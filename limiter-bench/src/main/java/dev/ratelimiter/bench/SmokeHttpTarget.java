package dev.ratelimiter.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.Verdict;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;

/**
 * The smoke run's HTTP server in place of Payara Micro (whose two starts alone outlast the smoke's 30 s): a JVM of
 * its own, as a Payara Micro is, started, awaited, loaded, watched for quiet and stopped by {@link HttpSection}'s
 * same code; it answers {@code GET /api/projects} with 200 and a small JSON body, after an in-memory decision of the
 * client's address in a bucket that never refuses when the limiter is {@code on}, with none when {@code off}.
 *
 * <p>Arguments: the port on 127.0.0.1, then {@code on} or {@code off}. Runs until its process is destroyed.
 */
public final class SmokeHttpTarget {

    private static final Bucket BUCKET = Bucket.of("api-anonymous", 1_000_000_000L, Duration.ofMinutes(1));
    private static final byte[] BODY = "[{\"id\":1,\"name\":\"smoke\"}]".getBytes(StandardCharsets.UTF_8);

    private SmokeHttpTarget() {
    }

    public static void main(String[] args) throws IOException {
        int port = Integer.parseInt(args[0]);
        boolean limiter = args[1].equals("on");
        LibraryPaths.Decision decision = limiter ? LibraryPaths.Decision.memory(List.of(BUCKET), 100_000) : null;
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 64);
        server.setExecutor(Executors.newFixedThreadPool(16));
        server.createContext(HttpSection.PATH, exchange -> answer(exchange, decision));
        server.start();
    }

    private static void answer(HttpExchange exchange, LibraryPaths.Decision decision) throws IOException {
        try (exchange; OutputStream body = exchange.getResponseBody()) {
            int status = 200;
            if (decision != null) {
                Verdict verdict = decision.decide(BUCKET, exchange.getRemoteAddress().getAddress().getHostAddress(),
                        KeyNormalization.NONE);
                exchange.getResponseHeaders().add("RateLimit", "\"" + BUCKET.name() + "\";r=" + verdict.remaining()
                        + ";t=" + verdict.resetAfter().toSeconds());
                status = verdict.isAllowed() ? 200 : 429;
            }
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, BODY.length);
            body.write(BODY);
        }
    }
}
