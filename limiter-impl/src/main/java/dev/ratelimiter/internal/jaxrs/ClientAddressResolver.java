package dev.ratelimiter.internal.jaxrs;

import dev.ratelimiter.internal.core.key.TrustedProxies;
import inet.ipaddr.AddressStringParameters.RangeParameters;
import inet.ipaddr.HostName;
import inet.ipaddr.HostNameParameters;
import inet.ipaddr.IPAddress;
import inet.ipaddr.ipv6.IPv6Address;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Decides which address a request is keyed by: the direct peer, unless the peer is a trusted proxy; then the
 * first address in {@code X-Forwarded-For}, walked from the right, that is not itself a trusted proxy.
 *
 * <p>Addresses are parsed as literals only, never looked up in DNS (IPAddress library, no wildcards, ranges or
 * {@code inet_aton} forms). An optional port ({@code 203.0.113.7:4711}, {@code [2001:db8::1]:443}) is dropped.
 * An IPv4-mapped IPv6 address is its IPv4 address; an IPv6 client is keyed by its prefix
 * ({@code ratelimiter.ipv6-prefix-length}, default /64), since one subscriber usually holds a whole /64. A hop that
 * does not parse ends the walk and the peer is used: a malformed header never causes an error, and never lets a
 * client choose its key.
 */
public final class ClientAddressResolver {

    private static final HostNameParameters LITERAL = new HostNameParameters.Builder()
            .allowPort(true)
            .allowService(false)
            .allowEmpty(false)
            .allowBracketedIPv4(true)
            .allowBracketedIPv6(true)
            .getAddressOptionsBuilder()
            .allowEmpty(false)
            .allowAll(false)
            .allowSingleSegment(false)
            .allowPrefix(false)
            .allowMask(false)
            .allow_inet_aton(false)
            .allowWildcardedSeparator(false)
            .setRangeOptions(RangeParameters.NO_RANGE)
            .getParentBuilder()
            .toParams();

    /** Peers remembered at most; past it the memo starts again empty (a flood of new peers costs a parse each). */
    static final int MAX_REMEMBERED_PEERS = 4_096;

    private final TrustedProxies trustedProxies;
    private final int ipv6PrefixLength;
    // What each peer text resolved to. Most requests come from a peer seen before (a load balancer, a proxy, a
    // returning client), and parsing it again cost more than the rest of the filter:
    // docs/architecture.md#the-path-of-a-request
    private final Map<String, Peer> peers = new ConcurrentHashMap<>();

    /**
     * A peer text, resolved.
     *
     * @param parsed  whether it is an address literal
     * @param trusted whether that address is a trusted proxy
     * @param key     its client key when parsed; else the text as given, stripped ({@code "unknown"} when blank)
     */
    private record Peer(boolean parsed, boolean trusted, String key) {
    }

    /** The answer for a platform that reports no peer: every request without one, so made once. */
    private static final Peer NO_PEER = new Peer(false, false, "unknown");

    /**
     * Built once, when the application starts serving ({@link ClientAddressSource}).
     *
     * @param trustedProxies   {@code ratelimiter.trusted-proxies}, parsed with the settings
     * @param ipv6PrefixLength 1..128, from {@code ratelimiter.ipv6-prefix-length}
     * @throws IllegalArgumentException naming {@code ratelimiter.ipv6-prefix-length} when it is out of range
     */
    public ClientAddressResolver(TrustedProxies trustedProxies, int ipv6PrefixLength) {
        if (ipv6PrefixLength < 1 || ipv6PrefixLength > 128) {
            throw new IllegalArgumentException("ratelimiter.ipv6-prefix-length: " + ipv6PrefixLength
                    + " is out of range 1..128");
        }
        this.trustedProxies = trustedProxies;
        this.ipv6PrefixLength = ipv6PrefixLength;
    }

    /**
     * @param trustedProxies   CIDRs ({@code 10.0.0.0/8}, {@code 2001:db8::/32}) or single addresses, from
     *                         {@code ratelimiter.trusted-proxies}
     * @param ipv6PrefixLength 1..128, from {@code ratelimiter.ipv6-prefix-length}
     * @throws IllegalArgumentException naming {@code ratelimiter.trusted-proxies} and the entry that is not a CIDR
     *                                  or address
     */
    public static ClientAddressResolver create(List<String> trustedProxies, int ipv6PrefixLength) {
        return new ClientAddressResolver(TrustedProxies.parse(trustedProxies), ipv6PrefixLength);
    }

    /**
     * @param peer         the direct peer's address as the server reports it; may be {@code null} or garbage
     * @param forwardedFor every {@code X-Forwarded-For} header line, in the order received (possibly empty)
     * @return the client key: an IPv4 address ({@code 203.0.113.7}), an IPv6 prefix ({@code 2001:db8:1:2::/64}),
     *         or, when even the peer does not parse, the peer text as given ({@code "unknown"} for none)
     */
    public String resolve(String peer, List<String> forwardedFor) {
        Peer resolved = peer(peer);
        if (!resolved.parsed() || !resolved.trusted() || forwardedFor.isEmpty()) {
            return resolved.key();
        }
        List<String> hops = hops(forwardedFor);
        IPAddress leftmostTrusted = null;
        for (int i = hops.size() - 1; i >= 0; i--) {
            Optional<IPAddress> hop = parse(hops.get(i));
            if (hop.isEmpty()) {
                return resolved.key();
            }
            if (!trusted(hop.get())) {
                return key(hop.get());
            }
            leftmostTrusted = hop.get();
        }
        return leftmostTrusted != null ? key(leftmostTrusted) : resolved.key();
    }

    private Peer peer(String text) {
        if (text == null) {
            return NO_PEER;
        }
        Peer known = peers.get(text);
        if (known != null) {
            return known;
        }
        Optional<IPAddress> address = parse(text);
        Peer resolved = address.isEmpty() ? new Peer(false, false, text.isBlank() ? "unknown" : text.strip())
                : new Peer(true, trusted(address.get()), key(address.get()));
        if (peers.size() >= MAX_REMEMBERED_PEERS) {
            peers.clear();
        }
        peers.put(text, resolved);
        return resolved;
    }

    /** Peers remembered now, at most {@link #MAX_REMEMBERED_PEERS}: for tests. */
    int rememberedPeers() {
        return peers.size();
    }

    /** {@code true} if the address lies in a trusted proxy range. */
    boolean trusted(IPAddress address) {
        return trustedProxies.contains(address);
    }

    private String key(IPAddress address) {
        if (address.isIPv4()) {
            return address.toNormalizedString();
        }
        IPv6Address v6 = address.toIPv6().removeZone();
        return v6.toPrefixBlock(ipv6PrefixLength).toCanonicalString();
    }

    private static List<String> hops(List<String> headerLines) {
        List<String> hops = new ArrayList<>();
        for (String line : headerLines) {
            if (line == null) {
                continue;
            }
            for (String hop : line.split(",", -1)) {
                hops.add(hop.strip());
            }
        }
        return hops;
    }

    private static Optional<IPAddress> parse(String text) {
        if (text == null || text.isBlank() || text.length() > 100) {
            return Optional.empty();
        }
        HostName host = new HostName(text.strip(), LITERAL);
        if (!host.isAddress()) {
            return Optional.empty();
        }
        IPAddress address = host.asAddress();
        return address == null ? Optional.empty() : Optional.of(TrustedProxies.unmapped(address));
    }
}
