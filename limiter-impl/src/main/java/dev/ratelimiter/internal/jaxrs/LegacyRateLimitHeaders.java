package dev.ratelimiter.internal.jaxrs;

import dev.ratelimiter.Limit;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.cdi.call.AppliedLimits.Applied;
import dev.ratelimiter.internal.core.settings.HeaderFields;

import jakarta.ws.rs.core.MultivaluedMap;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The older rate limit header fields, which describe one window ({@link #mostRestrictive}): on a refusal, the
 * refusing bucket's, 0 left, resetting when {@code Retry-After} says; otherwise the window with the fewest attempts
 * left of every window consulted during the request (of those, the one that ends last, since a client that waits
 * for it waits for the others too). Clients written for them read one limit, one remainder and one reset time, and
 * cannot read draft-10's lists (docs/reference.md#fields-for-older-clients):
 * <pre>
 * RateLimit-Limit: 5          X-RateLimit-Limit: 5
 * RateLimit-Remaining: 4      X-RateLimit-Remaining: 4
 * RateLimit-Reset: 900        X-RateLimit-Reset: 1796550300
 * </pre>
 * {@code RateLimit-*} ({@link HeaderFields#DRAFT_6}, draft-ietf-httpapi-ratelimit-headers-06) gives the reset
 * in seconds from now, rounded up and at least 1, as draft-10's {@code t}; {@code X-RateLimit-*}
 * ({@link HeaderFields#X_RATELIMIT}) gives it as a Unix time in seconds, rounded up, as GitHub's API does, from the
 * machine's wall clock.
 */
public final class LegacyRateLimitHeaders {

    /** draft-6's fields' names. */
    public static final String LIMIT = "RateLimit-Limit";
    public static final String REMAINING = "RateLimit-Remaining";
    public static final String RESET = "RateLimit-Reset";
    /** The {@code X-} fields' names. */
    public static final String X_LIMIT = "X-RateLimit-Limit";
    public static final String X_REMAINING = "X-RateLimit-Remaining";
    public static final String X_RESET = "X-RateLimit-Reset";

    private LegacyRateLimitHeaders() {
    }

    /**
     * One window's state, as the older fields give it.
     *
     * @param limit      the window's limit (a token bucket's: its limit per window)
     * @param remaining  attempts left in it
     * @param resetAfter time until it ends (a token bucket: until it is full again; a refusal's window: until the
     *                   refused call would be allowed)
     */
    record Window(long limit, long remaining, Duration resetAfter) {

        /** Seconds until the window ends, rounded up, at least 1 (as draft-10's {@code t}). */
        long resetSeconds() {
            return Math.max(1, resetAfter.getSeconds() + (resetAfter.getNano() > 0 ? 1 : 0));
        }

        /** The Unix time in seconds, rounded up, when the window ends, from {@code now}. */
        long resetEpochSecond(Instant now) {
            Instant end = now.plus(resetAfter);
            return end.getEpochSecond() + (end.getNano() > 0 ? 1 : 0);
        }
    }

    /**
     * Adds the fields of {@code fields}' older families (draft-10's are {@link RateLimitHeaders}') that the response
     * does not already carry.
     *
     * @param headers the response's headers
     * @param fields  the families configured ({@code ratelimiter.headers.fields})
     * @param applied the request's verdicts, not empty
     * @param now     the time the Unix reset time counts from
     */
    static void write(MultivaluedMap<String, Object> headers, Set<HeaderFields> fields, List<Applied> applied,
                      Instant now) {
        boolean draft6 = fields.contains(HeaderFields.DRAFT_6);
        boolean x = fields.contains(HeaderFields.X_RATELIMIT);
        if (!draft6 && !x) {
            return;
        }
        Optional<Window> found = mostRestrictive(applied);
        if (found.isEmpty()) {
            return;
        }
        Window window = found.get();
        if (draft6) {
            putIfAbsent(headers, LIMIT, window.limit());
            putIfAbsent(headers, REMAINING, window.remaining());
            putIfAbsent(headers, RESET, window.resetSeconds());
        }
        if (x) {
            putIfAbsent(headers, X_LIMIT, window.limit());
            putIfAbsent(headers, X_REMAINING, window.remaining());
            putIfAbsent(headers, X_RESET, window.resetEpochSecond(now));
        }
    }

    /**
     * The window the older fields describe. A refusal's, when a verdict of {@code applied} refused ({@code DENIED},
     * or {@code UNAVAILABLE} in an outage): its limit (of several windows, the refusing window's), 0 left, since the
     * request cannot go on, and its {@code resetAfter}, which {@code Retry-After} gives; of several refusals (decisions
     * in code go on after one), the one that ends last. Otherwise the window with the fewest attempts left among every
     * window of {@code applied}, of those the one that ends last; a verdict without each window's state counts as
     * each of its bucket's windows with the verdict's own remainder and reset.
     *
     * @return empty only when {@code applied} is
     */
    static Optional<Window> mostRestrictive(List<Applied> applied) {
        Window refusal = null;
        Window most = null;
        for (Applied a : applied) {
            Verdict verdict = a.verdict();
            if (verdict.outcome() != Verdict.Outcome.ALLOWED) {
                Window refused = new Window(verdict.limit(), 0, verdict.resetAfter());
                refusal = stricter(refusal, refused);
            } else if (verdict.windows().isEmpty()) {
                for (Limit limit : a.bucket().limits()) {
                    most = stricter(most, new Window(limit.limit(), verdict.remaining(), verdict.resetAfter()));
                }
            } else {
                for (Verdict.Window w : verdict.windows()) {
                    most = stricter(most, new Window(w.limit().limit(), w.remaining(), w.resetAfter()));
                }
            }
        }
        return Optional.ofNullable(refusal != null ? refusal : most);
    }

    private static Window stricter(Window most, Window candidate) {
        if (most == null || candidate.remaining() < most.remaining()) {
            return candidate;
        }
        return candidate.remaining() == most.remaining()
                && candidate.resetAfter().compareTo(most.resetAfter()) > 0 ? candidate : most;
    }

    private static void putIfAbsent(MultivaluedMap<String, Object> headers, String name, long value) {
        if (!headers.containsKey(name)) {
            headers.putSingle(name, Long.toString(value));
        }
    }
}
