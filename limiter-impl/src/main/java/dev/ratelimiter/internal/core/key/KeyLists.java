package dev.ratelimiter.internal.core.key;

import dev.ratelimiter.KeyNormalization;
import inet.ipaddr.IPAddress;
import inet.ipaddr.IPAddressString;
import inet.ipaddr.IPAddressStringParameters;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One bucket's allow and deny lists ({@code ratelimiter.buckets.<name>.allow} and {@code .deny},
 * docs/guide.md#allow-and-deny-lists), parsed once when the settings are read: which keys the bucket never refuses
 * and which it refuses without asking the store.
 *
 * <p>An entry is either a key, matched exactly after the call's {@link KeyNormalization} (a login list written
 * {@code Admin@Example.com} matches {@code admin@example.com}), or an IP address or CIDR range (IPAddress library,
 * literals only, as {@link TrustedProxies}), which matches a key that is an address or prefix inside it: the client
 * address an anonymous request is keyed by ({@code 203.0.113.7}, or an IPv6 client's prefix
 * {@code 2001:db8:1:2::/64}), or an application's key written as an address. A key on both lists takes the list of
 * its most specific entry: an exact key beats any range, a longer prefix a shorter one, and deny wins a tie, so
 * {@code deny=203.0.113.0/24} with {@code allow=203.0.113.7} lets that one partner through.
 *
 * <p>Immutable and safe for concurrent use. Equal when written alike, so a reload tells a changed list.
 */
public final class KeyLists {

    /** What the lists say of a key. */
    public enum Listing {
        /** On neither list: the limits decide. */
        NONE,
        /** On the allow list: counted, never refused. */
        ALLOWED,
        /** On the deny list: refused, with no store call. */
        DENIED
    }

    /** Empty lists: every key is {@link Listing#NONE}. */
    public static final KeyLists NONE = new KeyLists(Entries.EMPTY, Entries.EMPTY);

    // An exact key outranks every range: a range's rank is its prefix length, at most 128.
    private static final int EXACT = 1_000;

    private static final IPAddressStringParameters LITERAL = TrustedProxies.CIDR;

    private final Entries allow;
    private final Entries deny;

    private KeyLists(Entries allow, Entries deny) {
        this.allow = allow;
        this.deny = deny;
    }

    /**
     * Parses a bucket's two lists.
     *
     * @param allowProperty the allow list's property name, for the error
     * @param allow         its entries, each stripped, none empty
     * @param denyProperty  the deny list's property name, for the error
     * @param deny          its entries, each stripped, none empty
     * @return the lists, {@link #NONE} when both are empty
     * @throws IllegalArgumentException naming the property and the entry, for an entry with a {@code /} that is no
     *                                  CIDR range (such as {@code 10.0.0.0/33})
     */
    public static KeyLists parse(String allowProperty, List<String> allow, String denyProperty, List<String> deny) {
        if (allow.isEmpty() && deny.isEmpty()) {
            return NONE;
        }
        return new KeyLists(Entries.parse(allowProperty, allow), Entries.parse(denyProperty, deny));
    }

    /** {@return whether both lists are empty} */
    public boolean isEmpty() {
        return allow.written.isEmpty() && deny.written.isEmpty();
    }

    /** {@return the allow list's entries as written} */
    public List<String> allowed() {
        return allow.written;
    }

    /** {@return the deny list's entries as written} */
    public List<String> denied() {
        return deny.written;
    }

    /**
     * What the lists say of a key.
     *
     * @param normalized    the key after its normalization, before it is hashed
     * @param normalization the normalization it went through, which the lists' keys go through too
     * @return {@link Listing#NONE} at once when both lists are empty
     */
    public Listing listing(String normalized, KeyNormalization normalization) {
        if (this == NONE) {
            return Listing.NONE;
        }
        IPAddress address = allow.blocks.isEmpty() && deny.blocks.isEmpty() ? null : address(normalized);
        int allowRank = allow.rank(normalized, normalization, address);
        int denyRank = deny.rank(normalized, normalization, address);
        if (denyRank >= 0 && denyRank >= allowRank) {
            return Listing.DENIED;
        }
        return allowRank >= 0 ? Listing.ALLOWED : Listing.NONE;
    }

    /** The key as an address or prefix block, or {@code null} when it is none (most application keys). */
    private static IPAddress address(String key) {
        if (key.isEmpty() || Character.digit(key.charAt(0), 16) < 0 && key.charAt(0) != ':') {
            return null; // no address starts otherwise: spares parsing a login or a tenant's name
        }
        IPAddress address = new IPAddressString(key, LITERAL).getAddress();
        return address == null ? null : TrustedProxies.unmapped(address);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof KeyLists lists && allow.written.equals(lists.allow.written)
                && deny.written.equals(lists.deny.written);
    }

    @Override
    public int hashCode() {
        return Objects.hash(allow.written, deny.written);
    }

    @Override
    public String toString() {
        return "KeyLists[allow=" + allow.written + ", deny=" + deny.written + "]";
    }

    /** One list: its keys under each normalization, and its ranges as prefix blocks. */
    private record Entries(List<String> written, Map<KeyNormalization, Set<String>> keys, List<IPAddress> blocks) {

        static final Entries EMPTY = new Entries(List.of(), Map.of(), List.of());

        static Entries parse(String property, List<String> entries) {
            if (entries.isEmpty()) {
                return EMPTY;
            }
            List<String> written = new ArrayList<>();
            Map<KeyNormalization, Set<String>> keys = new EnumMap<>(KeyNormalization.class);
            List<IPAddress> blocks = new ArrayList<>();
            for (String entry : entries) {
                String stripped = entry.strip();
                IPAddress address = new IPAddressString(stripped, LITERAL).getAddress();
                if (address != null) {
                    blocks.add(TrustedProxies.unmapped(address).toPrefixBlock());
                } else if (notALiteral(stripped)) {
                    throw new IllegalArgumentException(property + ": '" + stripped + "' is no key, address or CIDR "
                            + "range the list can hold: write an address without brackets, port or wildcard "
                            + "(203.0.113.7, 2001:db8::1, 203.0.113.0/24)");
                } else if (looksLikeRange(stripped)) {
                    throw new IllegalArgumentException(property + ": '" + stripped + "' is not a CIDR range such "
                            + "as 203.0.113.0/24 or 2001:db8::/32: its prefix length must be within its address's "
                            + "bits (32 for IPv4, 128 for IPv6)");
                } else {
                    for (KeyNormalization normalization : KeyNormalization.values()) {
                        keys.computeIfAbsent(normalization, n -> new HashSet<>())
                                .add(KeyNormalizer.normalize(stripped, normalization));
                    }
                }
                written.add(stripped);
            }
            keys.replaceAll((normalization, set) -> Set.copyOf(set));
            return new Entries(List.copyOf(written), Map.copyOf(keys), List.copyOf(blocks));
        }

        /**
         * An address as a URL or a log writes it, which the list would take for a key that never matches: a wildcard
         * ({@code *}, {@code 10.*}), brackets ({@code [2001:db8::1]}), or an IPv4 address with a port
         * ({@code 203.0.113.7:8080}).
         */
        private static boolean notALiteral(String entry) {
            if (entry.contains("*") || entry.startsWith("[")) {
                return true;
            }
            int colon = entry.indexOf(':');
            return colon > 0 && entry.indexOf(':', colon + 1) < 0
                    && new IPAddressString(entry.substring(0, colon), LITERAL).isIPv4();
        }

        /** An address, a slash and what is no prefix length of it: a mistyped range, not a key. */
        private static boolean looksLikeRange(String entry) {
            int slash = entry.indexOf('/');
            return slash > 0 && new IPAddressString(entry.substring(0, slash), LITERAL).isIPAddress();
        }

        /** The most specific entry's rank that holds the key, or -1 when none does. */
        int rank(String key, KeyNormalization normalization, IPAddress address) {
            Set<String> exact = keys.get(normalization);
            if (exact != null && exact.contains(key)) {
                return EXACT;
            }
            int rank = -1;
            if (address != null) {
                for (IPAddress block : blocks) {
                    if (block.getIPVersion() == address.getIPVersion() && block.contains(address)) {
                        Integer prefix = block.getNetworkPrefixLength();
                        rank = Math.max(rank, prefix == null ? block.getBitCount() : prefix);
                    }
                }
            }
            return rank;
        }
    }
}
