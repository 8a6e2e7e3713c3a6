package dev.ratelimiter.internal.core.key;

import dev.ratelimiter.KeyNormalization;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Label;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.text.Normalizer;
import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;

class KeyNormalizerTest {

    private final Locale original = Locale.getDefault();

    @AfterEach
    void restoreLocale() {
        Locale.setDefault(original);
    }

    @Test
    @DisplayName("ADMIN@X.COM under a Turkish default locale normalizes like admin@x.com")
    void turkishLocale() {
        Locale.setDefault(Locale.forLanguageTag("tr-TR"));
        assertThat(KeyNormalizer.normalize("ADMIN@X.COM", KeyNormalization.LOGIN)).isEqualTo("admin@x.com");
        assertThat(KeyNormalizer.normalize("ILIKE", KeyNormalization.LOGIN)).isEqualTo("ilike");
    }

    @Test
    @DisplayName("LOGIN strips white space (also Unicode spaces) and folds compatibility forms with NFKC")
    void stripAndNfkc() {
        assertThat(KeyNormalizer.normalize("\u2003 Alice\t", KeyNormalization.LOGIN)).isEqualTo("alice");
        // full-width letters and the "fi" ligature fold to ASCII
        assertThat(KeyNormalizer.normalize("\uFF21\uFF2C\uFF29\uFF23\uFF25", KeyNormalization.LOGIN)).isEqualTo("alice");
        assertThat(KeyNormalizer.normalize("\uFB01nn", KeyNormalization.LOGIN)).isEqualTo("finn");
    }

    @Test
    @DisplayName("NONE keeps the key as given; null is the empty key")
    void noneKeepsKey() {
        assertThat(KeyNormalizer.normalize(" Alice ", KeyNormalization.NONE)).isEqualTo(" Alice ");
        assertThat(KeyNormalizer.normalize(null, KeyNormalization.LOGIN)).isEmpty();
    }

    @Property
    @Label("LOGIN gives what NFKC, strip() and toLowerCase(Locale.ROOT) give, for ASCII keys and others")
    void loginIsTheThreeSteps(@ForAll("keys") String key) {
        String expected = Normalizer.normalize(key, Normalizer.Form.NFKC).strip().toLowerCase(Locale.ROOT);
        assertThat(KeyNormalizer.normalize(key, KeyNormalization.LOGIN)).isEqualTo(expected);
    }

    @Provide
    Arbitrary<String> keys() {
        Arbitrary<String> ascii = Arbitraries.strings().ascii().ofMaxLength(40);
        Arbitrary<String> login = Arbitraries.strings().withChars("abcXYZ09@.-_ \t").ofMaxLength(24);
        Arbitrary<String> unicode = Arbitraries.strings().all().ofMaxLength(12);
        Arbitrary<String> compatibility = Arbitraries.strings().withChars("aA \u2003\uFF21\uFB01\u0130\u00C5\u212B")
                .ofMaxLength(8);
        return Arbitraries.oneOf(ascii, login, unicode, compatibility);
    }
}
