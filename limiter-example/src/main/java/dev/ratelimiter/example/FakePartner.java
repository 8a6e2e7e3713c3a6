package dev.ratelimiter.example;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;

import java.util.HashMap;
import java.util.Map;

/**
 * Stands for a partner's quote API behind a MicroProfile Rest Client, which the example calls at the partner's limit
 * (docs/guide.md#waiting-instead-of-refusing). The partner allows 3 quotes per account in 10 seconds; past that it
 * answers 429 with {@code Retry-After} (the seconds until its 10 seconds end), which a Rest Client throws as a
 * {@link WebApplicationException} carrying the response, as this one does.
 */
@ApplicationScoped
public class FakePartner {

    /** Quotes per account in each 10 seconds, at the partner. */
    static final int QUOTES = 3;
    /** The partner's window, milliseconds. */
    static final long WINDOW_MILLIS = 10_000;

    /** Per account: when its window started (epoch milliseconds) and the quotes in it. */
    private final Map<String, long[]> windows = new HashMap<>();

    /**
     * A quote of {@code symbol} for {@code account}.
     *
     * @throws WebApplicationException 429 with {@code Retry-After} past the partner's limit
     */
    public String quote(String account, String symbol) {
        long retryAfterSeconds;
        synchronized (windows) {
            long now = System.currentTimeMillis();
            long[] window = windows.computeIfAbsent(account, any -> new long[] {now, 0});
            if (now - window[0] >= WINDOW_MILLIS) {
                window[0] = now;
                window[1] = 0;
            }
            if (++window[1] <= QUOTES) {
                return symbol.toUpperCase(java.util.Locale.ROOT) + " 101.25";
            }
            retryAfterSeconds = Math.max(1, (window[0] + WINDOW_MILLIS - now + 999) / 1_000);
        }
        throw new WebApplicationException("the partner's limit", Response.status(429)
                .header("Retry-After", Long.toString(retryAfterSeconds)).build());
    }
}
