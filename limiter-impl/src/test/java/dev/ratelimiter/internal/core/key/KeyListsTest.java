package dev.ratelimiter.internal.core.key;

import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.internal.core.key.KeyLists.Listing;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A bucket's allow and deny lists: keys, addresses and ranges, and which list wins (docs/guide.md#allow-and-deny-lists). */
class KeyListsTest {

    private static KeyLists lists(List<String> allow, List<String> deny) {
        return KeyLists.parse("ratelimiter.buckets.b.allow", allow, "ratelimiter.buckets.b.deny", deny);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
            // the guide's example: a range denied, one partner inside it allowed, another range's address allowed
            "203.0.113.7, ALLOWED",
            "203.0.113.8, DENIED",
            "203.0.113.255, DENIED",
            "203.0.114.1, NONE",
            "192.0.2.10, ALLOWED",
            "192.0.2.11, NONE",
            // an IPv6 client is keyed by its /64, which a /48 holds
            "2001:db8:bad:1::/64, DENIED",
            "2001:db8:bad::1, DENIED",
            "2001:db8:bae:1::/64, NONE",
            // an IPv4-mapped IPv6 key is its IPv4 address
            "::ffff:203.0.113.9, DENIED",
            // keys that are no address
            "status-probe, ALLOWED",
            "Status-Probe, NONE",
            "acme, NONE",
            "'', NONE"
    })
    void guideExample(String key, Listing expected) {
        KeyLists lists = lists(List.of("203.0.113.7", "192.0.2.10", "status-probe"),
                List.of("203.0.113.0/24", "2001:db8:bad::/48"));
        assertThat(lists.listing(key, KeyNormalization.NONE)).isEqualTo(expected);
    }

    @Test
    @DisplayName("a key is matched after the call's normalization: a login list written in capitals holds the login in any case")
    void keysNormalized() {
        KeyLists lists = lists(List.of(), List.of("  Mallory@Example.COM"));
        assertThat(lists.listing("mallory@example.com", KeyNormalization.LOGIN)).isEqualTo(Listing.DENIED);
        assertThat(lists.listing("mallory@example.com", KeyNormalization.NONE)).as("as given: another key")
                .isEqualTo(Listing.NONE);
        assertThat(lists.listing("Mallory@Example.COM", KeyNormalization.NONE)).isEqualTo(Listing.DENIED);
    }

    @Test
    @DisplayName("the most specific entry wins; a tie goes to deny")
    void mostSpecificWins() {
        KeyLists nested = lists(List.of("10.0.0.0/8"), List.of("10.1.0.0/16", "10.1.2.3"));
        assertThat(nested.listing("10.2.0.1", KeyNormalization.NONE)).isEqualTo(Listing.ALLOWED);
        assertThat(nested.listing("10.1.0.1", KeyNormalization.NONE)).isEqualTo(Listing.DENIED);
        assertThat(nested.listing("10.1.2.3", KeyNormalization.NONE)).isEqualTo(Listing.DENIED);

        KeyLists tie = lists(List.of("198.51.100.0/24", "alice"), List.of("198.51.100.0/24", "alice"));
        assertThat(tie.listing("198.51.100.4", KeyNormalization.NONE)).isEqualTo(Listing.DENIED);
        assertThat(tie.listing("alice", KeyNormalization.NONE)).isEqualTo(Listing.DENIED);

        KeyLists exactBeatsRange = lists(List.of("198.51.100.4"), List.of("198.51.100.0/24"));
        assertThat(exactBeatsRange.listing("198.51.100.4", KeyNormalization.NONE)).isEqualTo(Listing.ALLOWED);
    }

    @Test
    @DisplayName("a range holds an IPv6 prefix key only when the key's block lies inside it")
    void prefixKeys() {
        KeyLists lists = lists(List.of(), List.of("2001:db8:1:2::/64", "2001:db8:9::1"));
        assertThat(lists.listing("2001:db8:1:2::/64", KeyNormalization.NONE)).isEqualTo(Listing.DENIED);
        assertThat(lists.listing("2001:db8:1::/48", KeyNormalization.NONE)).as("wider than the range")
                .isEqualTo(Listing.NONE);
        assertThat(lists.listing("2001:db8:9::/64", KeyNormalization.NONE))
                .as("one address does not hold its client's /64").isEqualTo(Listing.NONE);
    }

    @ParameterizedTest
    @ValueSource(strings = {"10.0.0.0/33", "2001:db8::/129", "203.0.113.0/x"})
    @DisplayName("a malformed range names the property and the entry")
    void malformedRange(String entry) {
        assertThatThrownBy(() -> lists(List.of("ok"), List.of("198.51.100.0/24", entry)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("ratelimiter.buckets.b.deny: '" + entry + "' is not a CIDR range");
    }

    @ParameterizedTest
    @ValueSource(strings = {"*", "10.*", "[2001:db8::1]", "[2001:db8::1]:443", "203.0.113.7:8080"})
    @DisplayName("an address as a URL or a log writes it is refused, naming the property, rather than taken for a key")
    void addressNotAsLiteral(String entry) {
        assertThatThrownBy(() -> lists(List.of(entry), List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("ratelimiter.buckets.b.allow: '" + entry + "' is no key, address or CIDR range");
    }

    @Test
    @DisplayName("an entry with a slash that is no address before it is a key, matched as written")
    void slashInKey() {
        KeyLists lists = lists(List.of("team/alpha"), List.of());
        assertThat(lists.listing("team/alpha", KeyNormalization.NONE)).isEqualTo(Listing.ALLOWED);
    }

    @Test
    @DisplayName("empty lists are NONE and list nothing; lists written alike are equal, so a reload tells a change")
    void emptyAndEquality() {
        assertThat(lists(List.of(), List.of())).isSameAs(KeyLists.NONE);
        assertThat(KeyLists.NONE.listing("203.0.113.7", KeyNormalization.NONE)).isEqualTo(Listing.NONE);
        assertThat(lists(List.of("a"), List.of("10.0.0.0/8"))).isEqualTo(lists(List.of("a"), List.of("10.0.0.0/8")))
                .isNotEqualTo(lists(List.of("a"), List.of("10.0.0.0/16")));
        assertThat(lists(List.of("a"), List.of()).allowed()).containsExactly("a");
    }
}
