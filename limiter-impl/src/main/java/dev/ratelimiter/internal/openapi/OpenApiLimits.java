package dev.ratelimiter.internal.openapi;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.internal.cdi.openapi.DocumentedLimits;
import dev.ratelimiter.internal.core.settings.HeaderFields;
import dev.ratelimiter.internal.jaxrs.LegacyRateLimitHeaders;
import dev.ratelimiter.internal.jaxrs.RateLimitHeaders;
import dev.ratelimiter.internal.jaxrs.RateLimitResponses;
import jakarta.ws.rs.core.HttpHeaders;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.models.Components;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;
import org.eclipse.microprofile.openapi.models.PathItem;
import org.eclipse.microprofile.openapi.models.headers.Header;
import org.eclipse.microprofile.openapi.models.media.Content;
import org.eclipse.microprofile.openapi.models.media.MediaType;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.responses.APIResponse;
import org.eclipse.microprofile.openapi.models.responses.APIResponses;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Adds the limits to an OpenAPI model (docs/openapi.md): on each operation a bucket limits, a 429 response with the
 * rate limit header fields the application sends (RateLimit and RateLimit-Policy by default; the fields for older
 * clients as {@code ratelimiter.headers.fields} names them) and Retry-After, and the refusal's {@code application/problem+json} schema, a
 * 400 where a call can lack its key, a 503 where a bucket fails closed, and the {@code x-ratelimit} extension naming
 * each bucket, its limits and windows (ISO-8601 durations), its algorithm and its plans. The responses, headers and
 * schemas are components the operations refer to, so the document holds each once.
 *
 * <p>An operation is limited when its path, followed by {@code /}, starts with one of the global filter's prefixes
 * (both are relative to the context root), or when it is a resource method's: same HTTP method, and its path is the
 * application's path followed by the method's. The application's path is the prefix that most resource methods'
 * paths share in the document (one JAX-RS application per deployment). A response the operation already declares
 * for 400, 429 or 503 is kept, and an operation that already has {@code x-ratelimit} is left alone, so running twice
 * (a server that filters at build time and again at startup) adds nothing.
 */
public final class OpenApiLimits {

    /** The extension on each limited operation. */
    public static final String EXTENSION = "x-ratelimit";

    /** The components' names, one place for the references. */
    static final String EXCEEDED = "RateLimitExceeded";
    static final String UNAVAILABLE = "RateLimiterUnavailable";
    static final String KEY_MISSING = "RateLimitKeyMissing";
    static final String PROBLEM = "RateLimitProblem";
    static final String KEY_MISSING_PROBLEM = "RateLimitKeyMissingProblem";
    /** The headers and media type the refusals send, named where the refusals are written. */
    static final String RATE_LIMIT = RateLimitHeaders.RATE_LIMIT;
    static final String RATE_LIMIT_POLICY = RateLimitHeaders.POLICY;
    static final String RETRY_AFTER = HttpHeaders.RETRY_AFTER;

    /** What each header field of a refusal says, by name. */
    private static final Map<String, String> HEADER_DESCRIPTIONS = Map.of(
            RATE_LIMIT, "The remaining quota of each policy the request counted in "
                    + "(draft-ietf-httpapi-ratelimit-headers-10, a Structured Field list): \"login\";r=0;t=52, r the "
                    + "attempts left, t the seconds until the window ends.",
            RATE_LIMIT_POLICY, "The quota policies the request counted in (draft-ietf-httpapi-ratelimit-headers-10): "
                    + "\"login\";q=5;w=900, q the limit, w the window in seconds; a bucket of several windows gives one "
                    + "item per window, \"projects-10s\";q=3;w=10; a calendar window (a day, a month) has no w.",
            LegacyRateLimitHeaders.LIMIT, "The limit of the request's most restrictive window "
                    + "(draft-ietf-httpapi-ratelimit-headers-06).",
            LegacyRateLimitHeaders.REMAINING, "The attempts left in the request's most restrictive window.",
            LegacyRateLimitHeaders.RESET, "Seconds until the request's most restrictive window ends.",
            LegacyRateLimitHeaders.X_LIMIT, "The limit of the request's most restrictive window.",
            LegacyRateLimitHeaders.X_REMAINING, "The attempts left in the request's most restrictive window.",
            LegacyRateLimitHeaders.X_RESET, "When the request's most restrictive window ends, as a Unix time in "
                    + "seconds.",
            RETRY_AFTER, "Seconds to wait before the request can succeed (RFC 9110 section 10.2.3).");

    /** RFC 9457's media type, as the library's refusals send it. */
    private static final String PROBLEM_JSON = RateLimitResponses.PROBLEM_JSON;

    private OpenApiLimits() {
    }

    /**
     * Adds the limits to {@code openAPI}.
     *
     * @param openAPI the document's model, changed in place
     * @param limits  what to show; nothing is changed when {@link DocumentedLimits#enabled()} is {@code false}
     * @return how many operations got their limits
     */
    public static int addTo(OpenAPI openAPI, DocumentedLimits limits) {
        if (!limits.enabled() || openAPI.getPaths() == null || openAPI.getPaths().getPathItems() == null) {
            return 0;
        }
        Map<String, PathItem> items = openAPI.getPaths().getPathItems();
        String applicationPath = applicationPath(items, limits.operations());
        Set<String> referenced = new HashSet<>();
        int added = 0;
        for (Map.Entry<String, PathItem> item : items.entrySet()) {
            String path = trimmed(item.getKey());
            Map<PathItem.HttpMethod, Operation> operations = item.getValue().getOperations();
            if (operations == null) {
                continue;
            }
            for (Map.Entry<PathItem.HttpMethod, Operation> entry : operations.entrySet()) {
                List<DocumentedLimits.Limit> operationLimits = new ArrayList<>();
                if (underPrefix(path, limits.pathPrefixes())) {
                    operationLimits.addAll(limits.global());
                }
                for (DocumentedLimits.Operation operation : limits.operations()) {
                    if (operation.httpMethod().equals(entry.getKey().name())
                            && path.equals(trimmed(applicationPath + operation.path()))) {
                        operationLimits.addAll(operation.limits());
                    }
                }
                if (!operationLimits.isEmpty() && add(entry.getValue(), operationLimits, referenced)) {
                    added++;
                }
            }
        }
        if (added > 0) {
            addComponents(openAPI, referenced, limits.headerFields());
        }
        return added;
    }

    private static boolean add(Operation operation, List<DocumentedLimits.Limit> limits, Set<String> referenced) {
        if (operation.getExtensions() != null && operation.getExtensions().containsKey(EXTENSION)) {
            return false;
        }
        APIResponses responses = operation.getResponses();
        if (responses == null) {
            responses = OASFactory.createObject(APIResponses.class);
            operation.setResponses(responses);
        }
        reference(responses, "429", EXCEEDED, referenced);
        if (limits.stream().anyMatch(DocumentedLimits.Limit::keyMayBeMissing)) {
            reference(responses, "400", KEY_MISSING, referenced);
        }
        if (limits.stream().anyMatch(DocumentedLimits.Limit::failsClosed)) {
            reference(responses, "503", UNAVAILABLE, referenced);
        }
        operation.addExtension(EXTENSION, limits.stream().map(OpenApiLimits::describe).toList());
        return true;
    }

    private static void reference(APIResponses responses, String status, String component,
                                  Set<String> referenced) {
        if (!responses.hasAPIResponse(status)) {
            referenced.add(component);
            responses.addAPIResponse(status, OASFactory.createObject(APIResponse.class)
                    .ref("#/components/responses/" + component));
        }
    }

    /**
     * One bucket as {@code x-ratelimit} lists it: {@code bucket}, {@code source}, {@code key} (when known),
     * {@code limits} ({@code limit} per {@code window}; a concurrency bucket's {@code concurrency} and {@code lease}
     * instead), {@code algorithm}, {@code burst} (token buckets),
     * {@code on-outage}, {@code plans} and {@code plan-resolver} (where declared).
     */
    static Map<String, Object> describe(DocumentedLimits.Limit limit) {
        Map<String, Object> described = new LinkedHashMap<>();
        Bucket bucket = limit.bucket();
        described.put("bucket", bucket.name());
        described.put("source", limit.source());
        if (limit.key() != null) {
            described.put("key", limit.key());
        }
        described.putAll(limitsOf(bucket));
        described.put("on-outage", bucket.onOutage().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
        if (!limit.plans().isEmpty()) {
            Map<String, Object> plans = new LinkedHashMap<>();
            limit.plans().entrySet().stream().sorted(Map.Entry.comparingByKey())
                    .forEach(plan -> plans.put(plan.getKey(), limitsOf(plan.getValue())));
            described.put("plans", plans);
        }
        if (limit.planResolver() != null) {
            described.put("plan-resolver", limit.planResolver());
        }
        return described;
    }

    private static Map<String, Object> limitsOf(Bucket bucket) {
        Map<String, Object> described = new LinkedHashMap<>();
        if (bucket.isConcurrency()) {
            // calls in flight, not a rate: no window to list (docs/guide.md#concurrency-limits)
            described.put("concurrency", bucket.limit());
            described.put("lease", bucket.lease().toString());
            described.put("algorithm", bucket.algorithm().configName());
            return described;
        }
        List<Map<String, Object>> windows = new ArrayList<>();
        for (Limit limit : bucket.limits()) {
            Map<String, Object> window = new LinkedHashMap<>();
            window.put("limit", limit.limit());
            window.put("window", limit.isCalendar() ? limit.windowName() : limit.window().toString());
            if (limit.isCalendar()) {
                window.put("zone", bucket.zoneName());
            }
            windows.add(window);
        }
        described.put("limits", windows);
        described.put("algorithm", bucket.algorithm().configName());
        if (bucket.isTokenBucket()) {
            described.put("burst", bucket.burst());
        }
        return described;
    }

    /**
     * The path the application's resource methods' paths follow in the document: for each operation of a resource
     * method, the part of each document path of the same HTTP method before the method's path; the prefix found for
     * the most methods wins, the shortest among equals. Empty when none is found (the methods are then matched as
     * they are).
     */
    static String applicationPath(Map<String, PathItem> items, List<DocumentedLimits.Operation> operations) {
        Map<String, Integer> votes = new HashMap<>();
        for (DocumentedLimits.Operation operation : operations) {
            String methodPath = trimmed(operation.path());
            for (Map.Entry<String, PathItem> item : items.entrySet()) {
                String path = trimmed(item.getKey());
                Map<PathItem.HttpMethod, Operation> documented = item.getValue().getOperations();
                boolean sameMethod = documented != null && documented.keySet().stream()
                        .anyMatch(method -> method.name().equals(operation.httpMethod()));
                if (sameMethod && path.endsWith(methodPath)) {
                    String prefix = path.substring(0, path.length() - methodPath.length());
                    if (prefix.isEmpty() || prefix.startsWith("/") && !prefix.endsWith("/")) {
                        votes.merge(prefix, 1, Integer::sum);
                    }
                }
            }
        }
        Optional<String> best = votes.entrySet().stream()
                .max(Comparator.<Map.Entry<String, Integer>>comparingInt(Map.Entry::getValue)
                        .thenComparing(entry -> -entry.getKey().length()))
                .map(Map.Entry::getKey);
        return best.orElse("");
    }

    private static boolean underPrefix(String path, List<String> prefixes) {
        String withSlash = path.endsWith("/") ? path : path + "/";
        return prefixes.stream().anyMatch(withSlash::startsWith);
    }

    /** The path with a leading {@code /} and no trailing one (the root stays {@code /}). */
    private static String trimmed(String path) {
        String trimmed = path.startsWith("/") ? path : "/" + path;
        while (trimmed.length() > 1 && trimmed.endsWith("/")) {
            trimmed = trimmed.substring(0, trimmed.length() - 1);
        }
        return trimmed;
    }

    /**
     * The responses the operations refer to, and the headers and schemas those refer to; an application's own of
     * the same name is kept.
     */
    private static void addComponents(OpenAPI openAPI, Set<String> referenced, Set<HeaderFields> headerFields) {
        if (referenced.isEmpty()) {
            return; // every limited operation declares its own refusals
        }
        Components components = openAPI.getComponents();
        if (components == null) {
            components = OASFactory.createObject(Components.class);
            openAPI.setComponents(components);
        }
        boolean refusals = referenced.contains(EXCEEDED) || referenced.contains(UNAVAILABLE);
        if (refusals) {
            putIfAbsent(components.getSchemas(), PROBLEM, components, problemSchema());
        }
        if (referenced.contains(KEY_MISSING)) {
            putIfAbsent(components.getSchemas(), KEY_MISSING_PROBLEM, components, keyMissingSchema());
        }
        List<String> headerNames = refusalHeaders(headerFields);
        if (refusals) {
            addHeaders(components, headerNames);
        }
        Map<String, APIResponse> responses = components.getResponses();
        if (referenced.contains(EXCEEDED) && (responses == null || !responses.containsKey(EXCEEDED))) {
            components.addResponse(EXCEEDED, refusal("Too Many Requests: a rate limit of the operation is exhausted "
                    + "(problem type quota-exceeded), or the caller is on a deny list (key-denied). See x-ratelimit for "
                    + "its buckets.", PROBLEM, headerNames));
        }
        if (referenced.contains(UNAVAILABLE) && (responses == null || !responses.containsKey(UNAVAILABLE))) {
            components.addResponse(UNAVAILABLE, refusal("Service Unavailable: the rate limiter's store is "
                    + "unavailable and a bucket of the operation fails closed (problem type "
                    + "temporary-reduced-capacity).", PROBLEM, headerNames));
        }
        if (referenced.contains(KEY_MISSING) && (responses == null || !responses.containsKey(KEY_MISSING))) {
            components.addResponse(KEY_MISSING, refusal("Bad Request: the request carries no key for a rate limit "
                    + "of the operation (its key resolver gave none).", KEY_MISSING_PROBLEM, List.of()));
        }
    }

    /**
     * The header fields of a 429 or 503, in the order a refusal lists them: {@code ratelimiter.headers.fields}'
     * families, then {@code Retry-After}.
     */
    static List<String> refusalHeaders(Set<HeaderFields> fields) {
        List<String> names = new ArrayList<>();
        if (fields.contains(HeaderFields.DRAFT_10)) {
            names.addAll(List.of(RATE_LIMIT, RATE_LIMIT_POLICY));
        }
        if (fields.contains(HeaderFields.DRAFT_6)) {
            names.addAll(List.of(LegacyRateLimitHeaders.LIMIT, LegacyRateLimitHeaders.REMAINING,
                    LegacyRateLimitHeaders.RESET));
        }
        if (fields.contains(HeaderFields.X_RATELIMIT)) {
            names.addAll(List.of(LegacyRateLimitHeaders.X_LIMIT, LegacyRateLimitHeaders.X_REMAINING,
                    LegacyRateLimitHeaders.X_RESET));
        }
        names.add(RETRY_AFTER);
        return names;
    }

    /** The header fields of a 429 or 503 ({@link #refusalHeaders}), each described once. */
    private static void addHeaders(Components components, List<String> names) {
        for (String name : names) {
            Map<String, Header> headers = components.getHeaders();
            if (headers == null || !headers.containsKey(name)) {
                components.addHeader(name, header(name.equals(RATE_LIMIT) || name.equals(RATE_LIMIT_POLICY)
                        ? Schema.SchemaType.STRING : Schema.SchemaType.INTEGER, HEADER_DESCRIPTIONS.get(name)));
            }
        }
    }

    private static void putIfAbsent(Map<String, Schema> schemas, String name, Components components,
                                    Schema schema) {
        if (schemas == null || !schemas.containsKey(name)) {
            components.addSchema(name, schema);
        }
    }

    private static APIResponse refusal(String description, String schema, List<String> headers) {
        APIResponse response = OASFactory.createObject(APIResponse.class).description(description);
        for (String header : headers) {
            response.addHeader(header, OASFactory.createObject(Header.class).ref("#/components/headers/" + header));
        }
        MediaType media = OASFactory.createObject(MediaType.class)
                .schema(OASFactory.createObject(Schema.class).ref("#/components/schemas/" + schema));
        return response.content(OASFactory.createObject(Content.class).addMediaType(PROBLEM_JSON, media));
    }

    private static Header header(Schema.SchemaType type, String description) {
        return OASFactory.createObject(Header.class).description(description)
                .schema(SchemaTypes.typed(OASFactory.createObject(Schema.class), type));
    }

    /** The body of a 429 or 503, as {@code RateLimitResponses} writes it (docs/reference.md#problem-types). */
    private static Schema problemSchema() {
        Schema schema = keyMissingSchema().description("A refusal (RFC 9457), as the rate limiter writes it.");
        schema.addProperty("violated-policies", SchemaTypes.typed(OASFactory.createObject(Schema.class),
                Schema.SchemaType.ARRAY).items(property(Schema.SchemaType.STRING,
                "A policy name, as RateLimit-Policy names it.")).description("The policies the request exceeded."));
        schema.addProperty("retryAfter", property(Schema.SchemaType.INTEGER, "The seconds of Retry-After."));
        schema.setRequired(List.of("type", "title", "status", "detail", "violated-policies", "bucket",
                "retryAfter"));
        return schema;
    }

    /** The body of a 400 for a missing key. */
    private static Schema keyMissingSchema() {
        Schema schema = SchemaTypes.typed(OASFactory.createObject(Schema.class), Schema.SchemaType.OBJECT)
                .description("A request without a key for a rate limit (RFC 9457).");
        schema.addProperty("type", property(Schema.SchemaType.STRING, "The problem type's URI.").format("uri"));
        schema.addProperty("title", property(Schema.SchemaType.STRING, "The problem type's title."));
        schema.addProperty("status", property(Schema.SchemaType.INTEGER, "The HTTP status."));
        schema.addProperty("detail", property(Schema.SchemaType.STRING, "What happened, for a person."));
        schema.addProperty("bucket", property(Schema.SchemaType.STRING, "The bucket's name."));
        schema.setRequired(List.of("type", "title", "status", "detail", "bucket"));
        return schema;
    }

    private static Schema property(Schema.SchemaType type, String description) {
        return SchemaTypes.typed(OASFactory.createObject(Schema.class), type).description(description);
    }
}
