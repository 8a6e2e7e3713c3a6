package dev.ratelimiter.docs;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The anchors GitHub gives the headings of one page, in page order: the heading's text lowercased, every character
 * that is not a letter, a mark, a digit or other number, a connector ('_'), a space or '-' dropped, each space
 * turned into '-' (repeated hyphens stay), and a text met again in the same page suffixed -1, -2, ...
 * ("The Valkey / Redis backend" is {@code the-valkey--redis-backend}).
 *
 * <p>Not commonmark-ext-heading-anchor's {@code IdGenerator}: it lowercases in the default locale (under a Turkish
 * one "I" becomes a dotless "ı") and keeps decimal digits only, where GitHub keeps every number ("10¹²").
 * Not thread-safe: one instance per page.
 */
public final class GitHubAnchors {

    private static final Pattern DROPPED = Pattern.compile("[^\\p{L}\\p{M}\\p{N}\\p{Pc} -]");

    private final Map<String, Integer> seen = new HashMap<>();

    /** The anchor of the page's next heading whose text (as GitHub renders it, without markup) is {@code text}. */
    public String next(String text) {
        String slug = slug(text);
        Integer before = seen.merge(slug, 1, Integer::sum) - 1;
        return before == 0 ? slug : slug + "-" + before;
    }

    /** The anchor of a heading's text, before any suffix for a repeated heading. */
    public static String slug(String text) {
        return DROPPED.matcher(text.toLowerCase(Locale.ROOT)).replaceAll("").replace(' ', '-');
    }
}
