package dev.ratelimiter.internal.jaxrs;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class ClientAddressResolverTest {

    private final ClientAddressResolver untrusting = ClientAddressResolver.create(List.of(), 64);
    private final ClientAddressResolver behindProxies =
            ClientAddressResolver.create(List.of("10.0.0.0/8", "127.0.0.1", "2001:db8:ffff::/48"), 64);

    @Test
    @DisplayName("without trusted proxies X-Forwarded-For is ignored")
    void untrustedPeerHeaderIgnored() {
        assertThat(untrusting.resolve("198.51.100.9", List.of("203.0.113.7"))).isEqualTo("198.51.100.9");
    }

    @Test
    @DisplayName("a header from an untrusted peer is ignored even when proxies are configured")
    void headerFromUntrustedPeerIgnored() {
        assertThat(behindProxies.resolve("198.51.100.9", List.of("203.0.113.7"))).isEqualTo("198.51.100.9");
    }

    @Test
    @DisplayName("behind a trusted proxy the rightmost untrusted hop is the client; spoofed left hops are ignored")
    void walkFromTheRight() {
        assertThat(behindProxies.resolve("10.0.0.2", List.of("1.1.1.1, 203.0.113.7, 10.0.0.5")))
                .isEqualTo("203.0.113.7");
    }

    @Test
    @DisplayName("several header lines are one list, in order")
    void severalLines() {
        assertThat(behindProxies.resolve("10.0.0.2", List.of("1.1.1.1", "203.0.113.7, 10.0.0.5")))
                .isEqualTo("203.0.113.7");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "garbage", "203.0.113.7, not-an-ip", "1.2.3", "0x7f.0.0.1", "*", "10.0.0.0/8",
            "example.com", "203.0.113.7,,", "\u0000"})
    @DisplayName("a malformed hop makes the peer the client")
    void garbageFallsBackToPeer(String header) {
        assertThat(behindProxies.resolve("10.0.0.2", List.of(header))).isEqualTo("10.0.0.2");
    }

    @Test
    @DisplayName("ports are dropped: 203.0.113.7:4711 and [2001:db8::1]:443")
    void portsDropped() {
        assertThat(behindProxies.resolve("127.0.0.1", List.of("203.0.113.7:4711"))).isEqualTo("203.0.113.7");
        assertThat(behindProxies.resolve("127.0.0.1", List.of("[2001:db8:1:2::1]:443")))
                .isEqualTo("2001:db8:1:2::/64");
    }

    @Test
    @DisplayName("IPv4-mapped IPv6 is IPv4, for the peer and for trust")
    void mappedIsIpv4() {
        assertThat(untrusting.resolve("::ffff:203.0.113.7", List.of())).isEqualTo("203.0.113.7");
        assertThat(behindProxies.resolve("::ffff:127.0.0.1", List.of("198.51.100.1"))).isEqualTo("198.51.100.1");
    }

    @Test
    @DisplayName("IPv6 clients are keyed by their /64")
    void ipv6Prefix() {
        assertThat(untrusting.resolve("2001:db8:1:2:aaaa::1", List.of())).isEqualTo("2001:db8:1:2::/64");
        assertThat(untrusting.resolve("2001:db8:1:2:bbbb::9", List.of())).isEqualTo("2001:db8:1:2::/64");
        assertThat(ClientAddressResolver.create(List.of(), 128).resolve("2001:db8::1", List.of()))
                .isEqualTo("2001:db8::1/128");
    }

    @Test
    @DisplayName("when every hop is trusted the leftmost is the client")
    void allTrusted() {
        assertThat(behindProxies.resolve("10.0.0.2", List.of("10.0.0.9, 10.0.0.5"))).isEqualTo("10.0.0.9");
    }

    @Test
    @DisplayName("a missing or unparsable peer never fails")
    void badPeer() {
        assertThat(untrusting.resolve(null, List.of())).isEqualTo("unknown");
        assertThat(untrusting.resolve("unix-socket", List.of("203.0.113.7"))).isEqualTo("unix-socket");
    }

    @Test
    @DisplayName("a trusted-proxy entry that is not an address or CIDR is refused, naming the property")
    void badTrustedProxy() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> ClientAddressResolver.create(List.of("proxy.internal"), 64))
                .withMessageContaining("ratelimiter.trusted-proxies").withMessageContaining("proxy.internal");
    }

    @Test
    @DisplayName("a peer seen before answers as it did the first time, for every kind of peer, header or none")
    void rememberedPeersAnswerAlike() {
        List<String> peers = List.of("198.51.100.9", "10.0.0.2", "127.0.0.1", "::ffff:10.0.0.3", "2001:db8:1:2::7",
                "2001:db8:ffff::1", "garbage", " ", "203.0.113.7:4711");
        List<List<String>> headers = List.of(List.of(), List.of("203.0.113.7"), List.of("1.1.1.1, 10.0.0.5"),
                List.of("not-an-ip"));
        for (String peer : peers) {
            for (List<String> header : headers) {
                String first = behindProxies.resolve(peer, header);
                ClientAddressResolver fresh = ClientAddressResolver.create(List.of("10.0.0.0/8", "127.0.0.1",
                        "2001:db8:ffff::/48"), 64);
                assertThat(behindProxies.resolve(peer, header)).as(peer + " " + header)
                        .isEqualTo(first).isEqualTo(fresh.resolve(peer, header));
            }
        }
    }

    @Test
    @DisplayName("a flood of new peers keeps at most MAX_REMEMBERED_PEERS, and every answer stays right past it")
    void rememberedPeersBounded() {
        int peers = ClientAddressResolver.MAX_REMEMBERED_PEERS * 2 + 17;
        for (int i = 0; i < peers; i++) {
            String peer = "198.51." + (i >> 8) + "." + (i & 0xff);
            assertThat(untrusting.resolve(peer, List.of("203.0.113.7"))).isEqualTo(peer);
            assertThat(untrusting.rememberedPeers()).isBetween(1, ClientAddressResolver.MAX_REMEMBERED_PEERS);
        }
        assertThat(untrusting.resolve(null, List.of())).isEqualTo("unknown");
    }
}
