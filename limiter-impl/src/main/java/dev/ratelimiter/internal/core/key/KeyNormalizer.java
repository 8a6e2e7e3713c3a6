package dev.ratelimiter.internal.core.key;

import dev.ratelimiter.KeyNormalization;

import java.text.Normalizer;
import java.util.Locale;

/**
 * Turns a raw key into the string that is hashed, as {@link KeyNormalization} describes.
 */
public final class KeyNormalizer {

    private KeyNormalizer() {
    }

    /**
     * @param raw           the raw key; {@code null} is the empty key
     * @param normalization how to normalize it
     * @return the normalized key, never {@code null}
     */
    public static String normalize(CharSequence raw, KeyNormalization normalization) {
        String key = raw == null ? "" : raw.toString();
        if (normalization == KeyNormalization.LOGIN && !alreadyNormalAscii(key)) {
            // NFKC first, so full-width and compatibility forms fold before case does; Locale.ROOT, so a
            // Turkish default locale does not turn "I" into a dotless "ı".
            return Normalizer.normalize(key, Normalizer.Form.NFKC).strip().toLowerCase(Locale.ROOT);
        }
        return key;
    }

    /**
     * {@code true} when NFKC, {@code strip()} and {@code toLowerCase(Locale.ROOT)} would all return {@code key}
     * unchanged: every character is ASCII (which NFKC maps to itself), none is an upper-case letter, and the first
     * and last are not white space. The common login passes this one scan, which allocates nothing, instead of three
     * passes of the JDK's general code (docs/architecture.md#the-path-of-a-request).
     */
    private static boolean alreadyNormalAscii(String key) {
        int length = key.length();
        if (length > 0 && (Character.isWhitespace(key.charAt(0)) || Character.isWhitespace(key.charAt(length - 1)))) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            char c = key.charAt(i);
            if (c >= 0x80 || (c >= 'A' && c <= 'Z')) {
                return false;
            }
        }
        return true;
    }
}
