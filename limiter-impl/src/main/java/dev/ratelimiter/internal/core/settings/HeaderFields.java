package dev.ratelimiter.internal.core.settings;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * A family of rate limit header fields a limited response can carry ({@code ratelimiter.headers.fields},
 * docs/reference.md#response-headers). The draft-10 fields describe every window consulted; the two older forms
 * describe one, the most restrictive, because that is all their clients read.
 */
public enum HeaderFields {
    /**
     * {@code RateLimit-Policy} and {@code RateLimit} of draft-ietf-httpapi-ratelimit-headers-10: one Structured
     * Field item per window.
     */
    DRAFT_10("draft-10"),
    /**
     * {@code RateLimit-Limit}, {@code RateLimit-Remaining} and {@code RateLimit-Reset} (seconds from now) of
     * draft-ietf-httpapi-ratelimit-headers-06 and earlier, as express-rate-limit's {@code standardHeaders: 'draft-6'}
     * sends them; not that draft's {@code RateLimit-Policy}, whose name draft-10's field holds.
     */
    DRAFT_6("draft-6"),
    /**
     * {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining} and {@code X-RateLimit-Reset} (Unix time in seconds),
     * as GitHub's API and express-rate-limit's {@code legacyHeaders} send them.
     */
    X_RATELIMIT("x-ratelimit");

    private final String configName;

    HeaderFields(String configName) {
        this.configName = configName;
    }

    /** {@return the configuration spelling: {@code draft-10}, {@code draft-6} or {@code x-ratelimit}} */
    public String configName() {
        return configName;
    }

    /**
     * The family of that configuration spelling, ignoring case and surrounding blanks.
     *
     * @return empty for any other text
     */
    public static Optional<HeaderFields> parse(String text) {
        String name = text.strip().toLowerCase(Locale.ROOT);
        return Arrays.stream(values()).filter(fields -> fields.configName.equals(name)).findFirst();
    }
}
