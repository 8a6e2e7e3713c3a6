package dev.ratelimiter.core;

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
        if (normalization == KeyNormalization.LOGIN) {
            // NFKC first, so full-width and compatibility forms fold before case does; Locale.ROOT, so a
            // Turkish default locale does not turn "I" into a dotless "ı".
            return Normalizer.normalize(key, Normalizer.Form.NFKC).strip().toLowerCase(Locale.ROOT);
        }
        return key;
    }
}
