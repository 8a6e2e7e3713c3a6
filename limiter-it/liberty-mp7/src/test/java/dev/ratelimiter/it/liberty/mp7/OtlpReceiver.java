package dev.ratelimiter.it.liberty.mp7;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceResponse;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.trace.v1.Span;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

import static org.awaitility.Awaitility.await;

/**
 * An OTLP/HTTP metrics and traces receiver ({@code POST /v1/metrics} and {@code /v1/traces}, protobuf, as
 * OpenTelemetry's OTLP exporter sends with {@code otel.exporter.otlp.protocol=http/protobuf}) on the loopback, keeping
 * the latest metrics export and every span. It stands where a
 * user's OpenTelemetry Collector or Prometheus' OTLP receiver would: the test reads what the server really sends,
 * and {@link OtlpAsPrometheus} names it as Prometheus would store it.
 *
 * <p>The exporter's default temporality is cumulative, so each export holds every count since the start, as a
 * scrape does; an export's data points carry the time they were collected, which tells an export that includes a
 * request from one made before it.
 */
final class OtlpReceiver implements AutoCloseable {

    private final HttpServer server;
    private final AtomicReference<ExportMetricsServiceRequest> latest = new AtomicReference<>();
    private final List<Span> spans = new CopyOnWriteArrayList<>();

    private OtlpReceiver(HttpServer server) {
        this.server = server;
    }

    /** Listens on 127.0.0.1 at {@code port} (the one the server's {@code otel.exporter.otlp.endpoint} names). */
    static OtlpReceiver start(int port) {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 16);
            OtlpReceiver receiver = new OtlpReceiver(server);
            server.createContext("/v1/metrics", receiver::receive);
            server.createContext("/v1/traces", receiver::receiveSpans);
            server.start();
            return receiver;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen for OTLP on 127.0.0.1:" + port, e);
        }
    }

    private void receive(HttpExchange exchange) throws IOException {
        answer(exchange, body -> latest.set(ExportMetricsServiceRequest.parseFrom(body)),
                ExportMetricsServiceResponse.getDefaultInstance().toByteArray());
    }

    private void receiveSpans(HttpExchange exchange) throws IOException {
        answer(exchange, body -> ExportTraceServiceRequest.parseFrom(body).getResourceSpansList().forEach(resource ->
                resource.getScopeSpansList().forEach(scope -> spans.addAll(scope.getSpansList()))),
                ExportTraceServiceResponse.getDefaultInstance().toByteArray());
    }

    /** Reads an export's body (gunzipped if it came so) and answers it as OTLP/HTTP asks: 200 and the response. */
    private static void answer(HttpExchange exchange, BodyReader reader, byte[] response) throws IOException {
        try (exchange) {
            if (!exchange.getRequestMethod().equals("POST")) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            try (InputStream body = "gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))
                    ? new GZIPInputStream(exchange.getRequestBody()) : exchange.getRequestBody()) {
                reader.read(body);
            }
            exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, response.length == 0 ? -1 : response.length);
            if (response.length > 0) {
                exchange.getResponseBody().write(response);
            }
        }
    }

    private interface BodyReader {
        void read(InputStream body) throws IOException;
    }

    /** Every span received so far, in the order they came. */
    List<Span> spans() {
        return List.copyOf(spans);
    }

    /**
     * The first export collected at or after now, waiting for it (at most {@code timeout}): it counts every request
     * made before this call.
     *
     * @throws org.awaitility.core.ConditionTimeoutException when none came in time
     */
    ExportMetricsServiceRequest exportAfterNow(Duration timeout) {
        long asked = toNanos(Instant.now());
        return await().atMost(timeout).pollInterval(Duration.ofMillis(100))
                .until(latest::get, export -> export != null && collected(export) >= asked);
    }

    /** The latest data point time of an export, in nanoseconds since the epoch (0 for an empty one). */
    private static long collected(ExportMetricsServiceRequest export) {
        return export.getResourceMetricsList().stream()
                .flatMap(resource -> resource.getScopeMetricsList().stream())
                .flatMap(scope -> scope.getMetricsList().stream())
                .flatMap(OtlpReceiver::pointTimes)
                .mapToLong(Long::longValue).max().orElse(0);
    }

    private static Stream<Long> pointTimes(Metric metric) {
        if (metric.hasSum()) {
            return metric.getSum().getDataPointsList().stream().map(point -> point.getTimeUnixNano());
        }
        if (metric.hasGauge()) {
            return metric.getGauge().getDataPointsList().stream().map(point -> point.getTimeUnixNano());
        }
        if (metric.hasHistogram()) {
            return metric.getHistogram().getDataPointsList().stream().map(point -> point.getTimeUnixNano());
        }
        return Stream.empty();
    }

    private static long toNanos(Instant instant) {
        return instant.getEpochSecond() * 1_000_000_000L + instant.getNano();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
