package dev.ratelimiter.it.liberty.mp7;

import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * OTLP metrics as Prometheus stores them, in the Prometheus text format, by the rules of OpenTelemetry's
 * specification "Prometheus and OpenMetrics Compatibility" (OTLP to Prometheus), which the Collector's Prometheus
 * exporters and Prometheus' own OTLP receiver apply: a name's characters other than letters, digits, {@code _} and
 * {@code :} become {@code _}; the unit is appended as a word ({@code s}: {@code _seconds}; annotations in braces
 * dropped; {@code 1} on a gauge: {@code _ratio}) unless the name ends with it; a monotonic cumulative sum is a
 * counter with {@code _total}; a non-monotonic sum and a gauge are gauges; a histogram is {@code _bucket} (with
 * cumulative {@code le} buckets), {@code _sum} and {@code _count}. Attributes are labels (named by the same
 * character rule), with the scope as {@code otel_scope_name} and the resource's {@code service.name} as
 * {@code job}.
 *
 * <p>Kinds Prometheus has no series for without a native histogram (exponential histograms, summaries) and delta
 * sums are left out: none of the library's series is one.
 */
final class OtlpAsPrometheus {

    /** UCUM units and their word in a Prometheus name (the specification's table, the units it lists). */
    private static final Map<String, String> UNITS = Map.ofEntries(
            Map.entry("d", "days"), Map.entry("h", "hours"), Map.entry("min", "minutes"), Map.entry("s", "seconds"),
            Map.entry("ms", "milliseconds"), Map.entry("us", "microseconds"), Map.entry("ns", "nanoseconds"),
            Map.entry("By", "bytes"), Map.entry("KiBy", "kibibytes"), Map.entry("MiBy", "mebibytes"),
            Map.entry("GiBy", "gibibytes"), Map.entry("KBy", "kilobytes"), Map.entry("MBy", "megabytes"),
            Map.entry("GBy", "gigabytes"), Map.entry("m", "meters"), Map.entry("V", "volts"),
            Map.entry("A", "amperes"), Map.entry("J", "joules"), Map.entry("W", "watts"), Map.entry("g", "grams"),
            Map.entry("Cel", "celsius"), Map.entry("Hz", "hertz"), Map.entry("%", "percent"));
    /** The word after {@code _per_} for a rate's denominator ({@code By/s}: {@code bytes_per_second}). */
    private static final Map<String, String> PER_UNITS = Map.of("s", "second", "m", "minute", "h", "hour",
            "d", "day", "w", "week", "mo", "month", "y", "year");

    private OtlpAsPrometheus() {
    }

    /** Every series of one export, with {@code # HELP} and {@code # TYPE} lines per metric. */
    static String exposition(ExportMetricsServiceRequest export) {
        StringBuilder text = new StringBuilder();
        for (ResourceMetrics resource : export.getResourceMetricsList()) {
            Map<String, String> resourceLabels = new TreeMap<>();
            for (KeyValue attribute : resource.getResource().getAttributesList()) {
                if (attribute.getKey().equals("service.name")) {
                    resourceLabels.put("job", value(attribute.getValue()));
                }
            }
            for (ScopeMetrics scope : resource.getScopeMetricsList()) {
                Map<String, String> scopeLabels = new TreeMap<>(resourceLabels);
                scopeLabels.put("otel_scope_name", scope.getScope().getName());
                for (Metric metric : scope.getMetricsList()) {
                    append(text, metric, scopeLabels);
                }
            }
        }
        return text.toString();
    }

    /**
     * The Prometheus name of a metric, before a histogram's sample suffixes: {@code rate_limiter.decisions} (a
     * monotonic sum, no unit) is {@code rate_limiter_decisions_total}, {@code rate_limiter.backend} (a histogram in
     * {@code s}) is {@code rate_limiter_backend_seconds}.
     */
    static String name(Metric metric) {
        String name = sanitize(metric.getName());
        String unit = unitWord(metric.getUnit(), metric.hasGauge()
                || metric.hasSum() && !metric.getSum().getIsMonotonic());
        if (!unit.isEmpty() && !name.endsWith("_" + unit)) {
            name += "_" + unit;
        }
        if (counter(metric) && !name.endsWith("_total")) {
            name += "_total";
        }
        return name;
    }

    private static void append(StringBuilder text, Metric metric, Map<String, String> scopeLabels) {
        String name = name(metric);
        if (counter(metric) || metric.hasGauge() || metric.hasSum() && !metric.getSum().getIsMonotonic()) {
            List<NumberDataPoint> points = metric.hasGauge() ? metric.getGauge().getDataPointsList()
                    : metric.getSum().getDataPointsList();
            header(text, name, metric, counter(metric) ? "counter" : "gauge");
            for (NumberDataPoint point : points) {
                sample(text, name, labels(scopeLabels, point.getAttributesList()), number(point));
            }
        } else if (metric.hasHistogram()
                && metric.getHistogram().getAggregationTemporality()
                == AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE) {
            header(text, name, metric, "histogram");
            for (HistogramDataPoint point : metric.getHistogram().getDataPointsList()) {
                Map<String, String> labels = labels(scopeLabels, point.getAttributesList());
                long cumulative = 0;
                for (int i = 0; i < point.getBucketCountsCount(); i++) {
                    cumulative += point.getBucketCounts(i);
                    Map<String, String> bucket = new TreeMap<>(labels);
                    // As Prometheus writes a bound: 1 rather than 1.0, 0.0001 rather than 1.0E-4.
                    bucket.put("le", i < point.getExplicitBoundsCount() ? java.math.BigDecimal.valueOf(
                            point.getExplicitBounds(i)).stripTrailingZeros().toPlainString() : "+Inf");
                    sample(text, name + "_bucket", bucket, cumulative);
                }
                sample(text, name + "_sum", labels, point.getSum());
                sample(text, name + "_count", labels, point.getCount());
            }
        }
    }

    private static boolean counter(Metric metric) {
        return metric.hasSum() && metric.getSum().getIsMonotonic()
                && metric.getSum().getAggregationTemporality()
                == AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE;
    }

    private static void header(StringBuilder text, String name, Metric metric, String type) {
        text.append("# HELP ").append(name).append(' ')
                .append(metric.getDescription().replace("\\", "\\\\").replace("\n", "\\n")).append('\n');
        text.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }

    private static void sample(StringBuilder text, String name, Map<String, String> labels, double value) {
        text.append(name).append('{');
        String separator = "";
        for (Map.Entry<String, String> label : labels.entrySet()) {
            text.append(separator).append(label.getKey()).append("=\"").append(label.getValue()
                    .replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n")).append('"');
            separator = ",";
        }
        text.append("} ").append(value).append('\n');
    }

    private static Map<String, String> labels(Map<String, String> scopeLabels, List<KeyValue> attributes) {
        Map<String, String> labels = new TreeMap<>(scopeLabels);
        for (KeyValue attribute : attributes) {
            labels.put(sanitize(attribute.getKey()), value(attribute.getValue()));
        }
        return labels;
    }

    private static double number(NumberDataPoint point) {
        return point.hasAsInt() ? point.getAsInt() : point.getAsDouble();
    }

    private static String value(AnyValue value) {
        return switch (value.getValueCase()) {
            case STRING_VALUE -> value.getStringValue();
            case BOOL_VALUE -> Boolean.toString(value.getBoolValue());
            case INT_VALUE -> Long.toString(value.getIntValue());
            case DOUBLE_VALUE -> Double.toString(value.getDoubleValue());
            default -> value.toString().strip();
        };
    }

    /** The unit as a word of the name; empty for none, for a bare annotation ({@code {call}}) and for {@code 1}. */
    private static String unitWord(String unit, boolean gauge) {
        String bare = unit.replaceAll("\\{[^}]*}", "").strip();
        if (bare.isEmpty()) {
            return "";
        }
        if (bare.equals("1")) {
            return gauge ? "ratio" : "";
        }
        int slash = bare.indexOf('/');
        if (slash >= 0) {
            String numerator = bare.substring(0, slash);
            String denominator = bare.substring(slash + 1);
            String per = "per_" + PER_UNITS.getOrDefault(denominator, sanitize(denominator));
            return numerator.isEmpty() ? per : UNITS.getOrDefault(numerator, sanitize(numerator)) + "_" + per;
        }
        return UNITS.getOrDefault(bare, sanitize(bare));
    }

    private static String sanitize(String name) {
        return name.replaceAll("[^A-Za-z0-9_:]", "_").replaceAll("_{2,}", "_");
    }
}
