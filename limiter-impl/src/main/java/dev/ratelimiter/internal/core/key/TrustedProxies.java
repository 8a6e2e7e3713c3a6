package dev.ratelimiter.internal.core.key;

import inet.ipaddr.AddressStringParameters.RangeParameters;
import inet.ipaddr.IPAddress;
import inet.ipaddr.IPAddressString;
import inet.ipaddr.IPAddressStringParameters;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code ratelimiter.trusted-proxies}, parsed once when the settings are read (IPAddress library: CIDRs and single
 * addresses as literals, no wildcards, ranges, masks or {@code inet_aton} forms, never a DNS look-up). The HTTP
 * layer's client-address resolver asks it whether a hop is a trusted proxy
 * (docs/guide.md#client-addresses-and-trusted-proxies).
 *
 * @param entries the property's entries as written, stripped
 * @param blocks  each entry as a prefix block ({@code 127.0.0.1} is {@code 127.0.0.1/32}), an IPv4-mapped IPv6
 *                entry as its IPv4 block
 */
public record TrustedProxies(List<String> entries, List<IPAddress> blocks) {

    /** No trusted proxy: every request is keyed by its direct peer. */
    public static final TrustedProxies NONE = new TrustedProxies(List.of(), List.of());

    /** Literals only: no wildcard, range, mask, {@code inet_aton} form or look-up; {@link KeyLists} parses so too. */
    static final IPAddressStringParameters CIDR = new IPAddressStringParameters.Builder()
            .allowEmpty(false)
            .allowAll(false)
            .allowSingleSegment(false)
            .allowMask(false)
            .allow_inet_aton(false)
            .allowWildcardedSeparator(false)
            .setRangeOptions(RangeParameters.NO_RANGE)
            .toParams();

    /** Copies both lists. */
    public TrustedProxies {
        entries = List.copyOf(entries);
        blocks = List.copyOf(blocks);
    }

    /**
     * @param entries CIDRs ({@code 10.0.0.0/8}, {@code 2001:db8::/32}) or single addresses
     * @return the parsed proxies
     * @throws IllegalArgumentException naming {@code ratelimiter.trusted-proxies} and the entry that is not a CIDR
     *                                  or address
     */
    public static TrustedProxies parse(List<String> entries) {
        List<String> written = new ArrayList<>();
        List<IPAddress> blocks = new ArrayList<>();
        for (String entry : entries) {
            IPAddress address = new IPAddressString(entry.strip(), CIDR).getAddress();
            if (address == null) {
                throw new IllegalArgumentException("ratelimiter.trusted-proxies: '" + entry
                        + "' is not an IP address or CIDR such as 10.0.0.0/8 or 2001:db8::/32");
            }
            written.add(entry.strip());
            blocks.add(unmapped(address).toPrefixBlock());
        }
        return new TrustedProxies(written, blocks);
    }

    /**
     * Whether the address lies in a trusted proxy's block.
     *
     * @param address a parsed address, IPv4-mapped IPv6 addresses already as IPv4
     */
    public boolean contains(IPAddress address) {
        for (IPAddress block : blocks) {
            if (block.getIPVersion() == address.getIPVersion() && block.contains(address)) {
                return true;
            }
        }
        return false;
    }

    /** An IPv4-mapped IPv6 address ({@code ::ffff:10.0.0.1}) as its IPv4 address; any other as it is. */
    public static IPAddress unmapped(IPAddress address) {
        if (address.isIPv6() && address.toIPv6().isIPv4Mapped()) {
            return address.toIPv6().getEmbeddedIPv4Address();
        }
        return address;
    }
}
