package dev.ratelimiter.it.ops;

import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * The metric names a PromQL expression selects, found by a conservative scan of its tokens: no PromQL parser is
 * published for Java (promtool, the real parser, checks the alert rules' syntax in {@code ops/prometheus/check.sh}).
 *
 * <p>Every identifier outside label matchers ({@code {...}}), ranges ({@code [...]}), strings and grouping lists
 * ({@code by}, {@code without}, {@code on}, {@code ignoring}, {@code group_left}, {@code group_right}) is a metric
 * name, unless it is a PromQL keyword ({@code and}, {@code or}, {@code unless}, {@code bool}, {@code offset},
 * {@code Inf}, {@code NaN}), an aggregation operator, or a function, that is an identifier followed by {@code (}.
 * Grafana's variables ({@code $job}, {@code ${job}}, {@code $__rate_interval}) are skipped. Conservative: what the
 * scan cannot classify is refused with an {@link IllegalArgumentException} rather than passed over, so a name is
 * never missed silently: a call of a function PromQL does not have, a selector by {@code __name__} or by a quoted
 * name, an unbalanced bracket, an unknown character.
 *
 * @see <a href="https://prometheus.io/docs/prometheus/latest/querying/basics/">Querying Prometheus: basics</a>
 */
public final class PromQlMetricNames {

    /** Aggregation operators: keywords, never metric names (the Prometheus lexer reserves them). */
    static final Set<String> AGGREGATIONS = Set.of("sum", "min", "max", "avg", "group", "stddev", "stdvar", "count",
            "count_values", "bottomk", "topk", "quantile", "limitk", "limit_ratio");

    /** PromQL's functions (Prometheus 2 and 3), and {@code start}/{@code end} of the {@code @} modifier. */
    static final Set<String> FUNCTIONS = Set.of("abs", "absent", "absent_over_time", "acos", "acosh", "asin",
            "asinh", "atan", "atanh", "avg_over_time", "ceil", "changes", "clamp", "clamp_max", "clamp_min", "cos",
            "cosh", "count_over_time", "day_of_month", "day_of_week", "day_of_year", "days_in_month", "deg", "delta",
            "deriv", "double_exponential_smoothing", "exp", "floor", "histogram_avg", "histogram_count",
            "histogram_fraction", "histogram_quantile", "histogram_stddev", "histogram_stdvar", "histogram_sum",
            "holt_winters", "hour", "idelta", "increase", "info", "irate", "label_join", "label_replace",
            "last_over_time", "ln", "log10", "log2", "mad_over_time", "max_over_time", "min_over_time", "minute",
            "month", "pi", "predict_linear", "present_over_time", "quantile_over_time", "rad", "rate", "resets",
            "round", "scalar", "sgn", "sin", "sinh", "sort", "sort_by_label", "sort_by_label_desc", "sort_desc",
            "sqrt", "stddev_over_time", "stdvar_over_time", "sum_over_time", "tan", "tanh", "time", "timestamp",
            "vector", "year", "start", "end");

    /** Keywords that take a parenthesized list of label names. */
    private static final Set<String> GROUPING = Set.of("by", "without", "on", "ignoring", "group_left",
            "group_right");

    /** Binary set operators and modifiers; {@code inf} and {@code nan} are numbers in any case. */
    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset", "atan2", "inf",
            "nan");

    private static final String OPERATORS = "+-*/%^=!<>,@";

    private final String expression;
    private int position;

    private PromQlMetricNames(String expression) {
        this.expression = expression;
    }

    /**
     * @param expression a PromQL expression, possibly with Grafana variables
     * @return the metric names it selects, sorted; empty for an expression that selects none ({@code vector(0)})
     * @throws IllegalArgumentException naming what the scan cannot classify, and where
     */
    public static Set<String> of(String expression) {
        return new PromQlMetricNames(expression).scan();
    }

    private Set<String> scan() {
        Set<String> names = new TreeSet<>();
        int depth = 0;
        while (position < expression.length()) {
            char c = expression.charAt(position);
            if (Character.isWhitespace(c)) {
                position++;
            } else if (c == '#') {
                skipComment();
            } else if (c == '"' || c == '\'' || c == '`') {
                skipString(c);
            } else if (c == '{') {
                skipMatchers();
            } else if (c == '[') {
                skipBracketed('[', ']');
            } else if (c == '$') {
                skipVariable();
            } else if (Character.isDigit(c) || c == '.' && position + 1 < expression.length()
                    && Character.isDigit(expression.charAt(position + 1))) {
                skipNumberOrDuration();
            } else if (isIdentifierStart(c)) {
                identifier(names);
            } else if (c == '(') {
                depth++;
                position++;
            } else if (c == ')') {
                if (--depth < 0) {
                    throw refused("')' without its '('");
                }
                position++;
            } else if (OPERATORS.indexOf(c) >= 0) {
                position++;
            } else {
                throw refused("unexpected character '" + c + "'");
            }
        }
        if (depth != 0) {
            throw refused("'(' is never closed");
        }
        return names;
    }

    private void identifier(Set<String> names) {
        int start = position;
        while (position < expression.length() && isIdentifierPart(expression.charAt(position))) {
            position++;
        }
        String word = expression.substring(start, position);
        String lower = word.toLowerCase(Locale.ROOT);
        boolean call = nextNonBlank() == '(';
        if (GROUPING.contains(word)) {
            if (call) {
                skipWhitespace();
                skipBracketed('(', ')');
            }
        } else if (KEYWORDS.contains(lower) || AGGREGATIONS.contains(word)) {
            return;
        } else if (call) {
            if (!FUNCTIONS.contains(word)) {
                throw refused("'" + word + "(' is no PromQL function");
            }
        } else {
            names.add(word);
        }
    }

    private void skipMatchers() {
        int start = position;
        skipBracketed('{', '}');
        String matchers = expression.substring(start + 1, position - 1).strip();
        if (matchers.contains("__name__") || matchers.startsWith("\"") || matchers.startsWith("'")) {
            throw refused("a selector by __name__ or by a quoted name: " + matchers);
        }
    }

    /** From an opening bracket to its closing one, over strings and nested brackets of the same kind. */
    private void skipBracketed(char open, char close) {
        int start = position;
        int depth = 0;
        while (position < expression.length()) {
            char c = expression.charAt(position);
            if (c == '"' || c == '\'' || c == '`') {
                skipString(c);
                continue;
            }
            position++;
            if (c == open) {
                depth++;
            } else if (c == close && --depth == 0) {
                return;
            }
        }
        position = start;
        throw refused("'" + open + "' is never closed");
    }

    private void skipString(char quote) {
        int start = position++;
        while (position < expression.length()) {
            char c = expression.charAt(position++);
            if (c == '\\' && quote != '`') {
                position++;
            } else if (c == quote) {
                return;
            }
        }
        position = start;
        throw refused("a string is never closed");
    }

    /** {@code $name}, {@code $__rate_interval} or {@code ${name}} / {@code ${name:format}}. */
    private void skipVariable() {
        position++;
        if (position < expression.length() && expression.charAt(position) == '{') {
            skipBracketed('{', '}');
            return;
        }
        while (position < expression.length() && isIdentifierPart(expression.charAt(position))) {
            position++;
        }
    }

    /** {@code 42}, {@code 1.5e3}, {@code 0x1f}, or a duration such as {@code 5m} or {@code 1h30m}. */
    private void skipNumberOrDuration() {
        while (position < expression.length()) {
            char c = expression.charAt(position);
            boolean exponentSign = (c == '+' || c == '-') && position > 0
                    && "eE".indexOf(expression.charAt(position - 1)) >= 0
                    && !expression.startsWith("0x", position - 2);
            if (Character.isLetterOrDigit(c) || c == '.' || exponentSign) {
                position++;
            } else {
                return;
            }
        }
    }

    private void skipComment() {
        while (position < expression.length() && expression.charAt(position) != '\n') {
            position++;
        }
    }

    private void skipWhitespace() {
        while (position < expression.length() && Character.isWhitespace(expression.charAt(position))) {
            position++;
        }
    }

    private char nextNonBlank() {
        int at = position;
        while (at < expression.length() && Character.isWhitespace(expression.charAt(at))) {
            at++;
        }
        return at < expression.length() ? expression.charAt(at) : 0;
    }

    private IllegalArgumentException refused(String what) {
        return new IllegalArgumentException("cannot read the PromQL expression at " + position + ": " + what
                + ": " + expression);
    }

    private static boolean isIdentifierStart(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == ':';
    }

    private static boolean isIdentifierPart(char c) {
        return isIdentifierStart(c) || c >= '0' && c <= '9';
    }
}
