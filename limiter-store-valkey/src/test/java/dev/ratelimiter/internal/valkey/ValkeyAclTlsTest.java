package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.Limit;
import dev.ratelimiter.internal.core.limiter.Limiter;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.internal.core.chain.StoreLimiter;
import dev.ratelimiter.internal.core.monitor.BackendMonitor;
import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.spi.FailureKind;
import dev.ratelimiter.spi.StoreException;
import dev.ratelimiter.spi.StorePermit;
import dev.ratelimiter.spi.StoreRefund;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.resps.AccessControlLogEntry;

import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Reaching a protected store: (a) an ACL user allowed exactly the commands the library sends, with the
 * {@code default} user behind a password; (b) TLS with a certificate of a CA made at test start, trusted through
 * the {@code trustStore} setting. Each case starts its own server; a refused connection is answered
 * {@code UNAVAILABLE} by the store's limiter, never thrown.
 */
class ValkeyAclTlsTest {

    private static final String ADMIN_PASSWORD = "admin-secret";
    private static final String TRUST_STORE_PASSWORD = "changeit";
    /**
     * What the library needs, and nothing more: EVALSHA and EVAL (after NOSCRIPT) to run the script, which calls
     * PTTL, GET, INCRBY and PEXPIRE for a fixed window, PTTL, GET and SET for a token bucket or a sliding window
     * (ACLs apply to a script's commands too, also the breaker's probe, which runs the script); DEL for reset (and in
     * the script, for a token bucket's or sliding window's key found without an expiry); PING for the pool's
     * idle-connection test
     * ({@code testWhileIdle}); INFO, read once at startup for the maxmemory policy; CLIENT SETNAME, sent by Jedis at
     * connect (it ignores a refusal, but then the connection has no name); and for a concurrency bucket's permits,
     * the commands permits.lua calls: TIME, ZREMRANGEBYSCORE, ZCARD, ZSCORE, ZADD, ZREM, ZRANGE (and PEXPIRE). Only
     * keys under the prefix.
     */
    private static final String[] LIMITER_USER = {"--user", "limiter", "on", ">secret", "~rl-test:*",
        "resetchannels", "-@all", "+evalsha", "+eval", "+pttl", "+get", "+incrby", "+pexpire", "+set", "+del",
        "+ping", "+info",
        "+client|setname", "+time", "+zremrangebyscore", "+zcard", "+zscore", "+zadd", "+zrem", "+zrange"};
    /** The limiter's user of a version without token buckets: the fixed window's commands, not SET. */
    private static final String[] FIXED_WINDOW_USER = {"--user", "fixed-window", "on", ">secret", "~rl-test:*",
        "resetchannels", "-@all", "+evalsha", "+eval", "+pttl", "+get", "+incrby", "+pexpire", "+del", "+ping",
        "+info", "+client|setname"};
    /** Allowed to run scripts but not the commands inside them: every decision is refused. */
    private static final String[] SCRIPT_ONLY_USER = {"--user", "script-only", "on", ">secret", "~rl-test:*",
        "resetchannels", "-@all", "+evalsha", "+eval", "+del", "+ping", "+info", "+client|setname"};

    private static Path certificates;

    private final Started started = new Started();

    /** A CA, a server certificate for IP 127.0.0.1 and one for another name, and a trust store with the CA. */
    @BeforeAll
    static void makeCertificates() throws Exception {
        certificates = Files.createTempDirectory("ratelimiter-tls-");
        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=ratelimiter test CA");
        serverCertificate("server", "subjectAltName=IP:127.0.0.1");
        serverCertificate("elsewhere", "subjectAltName=DNS:elsewhere.invalid");
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(certificates.resolve("ca.crt"))) {
            trust.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        try (OutputStream out = Files.newOutputStream(certificates.resolve("trust.p12"))) {
            trust.store(out, TRUST_STORE_PASSWORD.toCharArray());
        }
    }

    private static void serverCertificate(String name, String subjectAltName) throws Exception {
        Files.writeString(certificates.resolve(name + ".ext"), subjectAltName + "\nbasicConstraints=CA:FALSE\n"
                + "keyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n");
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", name + ".key", "-out", name + ".csr", "-subj", "/CN=127.0.0.1");
        openssl("x509", "-req", "-in", name + ".csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", name + ".crt", "-days", "2", "-extfile", name + ".ext");
    }

    private static void openssl(String... arguments) throws Exception {
        List<String> command = new ArrayList<>(List.of("openssl"));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).directory(certificates.toFile()).redirectErrorStream(true)
                .start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
        }
    }

    @AfterEach
    void stop() throws Exception {
        started.close();
    }

    private <T extends AutoCloseable> T started(T resource) {
        return started.add(resource);
    }

    // ---------------------------------------------------------------- ACL

    private RedisServer aclServer() {
        List<String> arguments = new ArrayList<>(List.of("--user", "default", "on", ">" + ADMIN_PASSWORD, "~*", "&*",
                "+@all"));
        arguments.addAll(List.of(LIMITER_USER));
        arguments.addAll(List.of(SCRIPT_ONLY_USER));
        arguments.addAll(List.of(FIXED_WINDOW_USER));
        return started(RedisServer.start(arguments.toArray(String[]::new)));
    }

    private Jedis admin(RedisServer server) {
        Jedis jedis = started(new Jedis("127.0.0.1", server.port()));
        jedis.auth(ADMIN_PASSWORD);
        return jedis;
    }

    @Test
    @DisplayName("ACL user and password in the URL: counts, refunds, resets and probes with only the granted "
            + "commands (the server logs no refusal)")
    void aclUserInUrl() throws StoreException {
        RedisServer server = aclServer();
        Store store = store(settings("redis://limiter:secret@127.0.0.1:" + server.port(), Optional.empty(),
                Optional.empty(), Optional.empty()));
        Bucket bucket = Bucket.of("acl-url", 5, Duration.ofSeconds(60));

        assertThat(remainingAfter(store.limiter, bucket, 3)).containsExactly(4L, 3L, 2L);
        Jedis admin = admin(server);
        assertThat(admin.get("rl-test:{acl-url:k}")).isEqualTo("3");
        // refund.lua runs only commands decide.lua does: INCRBY (by a negative amount), SET, DEL
        store.store.refund(List.of(new StoreRefund(bucket, "k", 1, new long[] {admin.pttl("rl-test:{acl-url:k}")})));
        assertThat(admin.get("rl-test:{acl-url:k}")).isEqualTo("2");
        store.limiter.reset(bucket, "k");
        assertThat(admin.exists("rl-test:{acl-url:k}")).isFalse();
        Bucket tokens = Bucket.of("acl-url-tokens", List.of(new Limit(5, Duration.ofSeconds(60))),
                dev.ratelimiter.OutagePolicy.FALLBACK, Algorithm.TOKEN_BUCKET, 0);
        assertThat(remainingAfter(store.limiter, tokens, 2)).containsExactly(4L, 3L);
        admin.persist("rl-test:{acl-url-tokens:k}:tokens"); // a key without an expiry: removed by the script
        assertThat(store.limiter.consume(tokens, "k", 0).remaining()).isEqualTo(5);
        assertThat(admin.exists("rl-test:{acl-url-tokens:k}:tokens")).isFalse();
        store.limiter.consume(tokens, "k", 2);
        store.store.refund(List.of(new StoreRefund(tokens, "k", 1, new long[] {0})));
        assertThat(store.limiter.consume(tokens, "k", 0).remaining()).isEqualTo(4);
        store.store.refund(List.of(new StoreRefund(tokens, "k", 1, new long[] {0}))); // full again: DEL
        assertThat(admin.exists("rl-test:{acl-url-tokens:k}:tokens")).isFalse();
        Bucket sliding = Bucket.of("acl-url-sliding", List.of(new Limit(5, Duration.ofSeconds(60))),
                dev.ratelimiter.OutagePolicy.FALLBACK, Algorithm.SLIDING_WINDOW, 0);
        // the first call opens the window (SET PX), the second writes within it (SET KEEPTTL)
        assertThat(remainingAfter(store.limiter, sliding, 2)).containsExactly(4L, 3L);
        assertThat(admin.get("rl-test:{acl-url-sliding:k}:sliding")).isEqualTo("2 0");
        store.store.refund(List.of(new StoreRefund(sliding, "k", 1,
                new long[] {admin.pttl("rl-test:{acl-url-sliding:k}:sliding") - 60_000})));
        assertThat(admin.get("rl-test:{acl-url-sliding:k}:sliding")).as("SET KEEPTTL").isEqualTo("1 0");
        admin.persist("rl-test:{acl-url-sliding:k}:sliding"); // a key without an expiry: removed by the script
        assertThat(store.limiter.consume(sliding, "k", 0).remaining()).isEqualTo(5);
        assertThat(admin.exists("rl-test:{acl-url-sliding:k}:sliding")).isFalse();
        store.limiter.consume(sliding, "k");
        store.limiter.reset(sliding, "k");
        assertThat(admin.exists("rl-test:{acl-url-sliding:k}:sliding")).isFalse();
        assertThatCode(store.store::probe).doesNotThrowAnyException();
        assertThat(admin.get("rl-test:{probe}:sliding")).as("the probe decided a sliding window").isNotNull();
        assertThat(store.monitor.errors()).isZero();
        assertThat(refusals(admin)).as("commands the server refused the limiter user").isEmpty();
        assertThat(admin.clientList()).as("the connection's name was set").contains("name=jakarta-rate-limiter");
    }

    @Test
    @DisplayName("ACL user and password from the settings fields: they count, and override the URL's")
    void aclUserInSettings() {
        RedisServer server = aclServer();
        Bucket bucket = Bucket.of("acl-settings", 5, Duration.ofSeconds(60));
        Store fields = store(settings("redis://127.0.0.1:" + server.port(), Optional.of("limiter"),
                Optional.of("secret"), Optional.empty()));
        Store overriding = store(settings("redis://nobody:wrong@127.0.0.1:" + server.port(), Optional.of("limiter"),
                Optional.of("secret"), Optional.empty()));

        assertThat(remainingAfter(fields.limiter, bucket, 2)).containsExactly(4L, 3L);
        assertThat(remainingAfter(overriding.limiter, bucket, 2)).containsExactly(2L, 1L);
        assertThat(fields.monitor.errors() + overriding.monitor.errors()).isZero();
        assertThat(refusals(admin(server))).isEmpty();
    }

    @Test
    @DisplayName("wrong password, no credentials, a key prefix outside the user's keys, or a user without the script's INCR, PTTL and PEXPIRE: consume answers UNAVAILABLE and throws nothing")
    void aclRefused() {
        RedisServer server = aclServer();
        Bucket bucket = Bucket.of("acl-refused", 5, Duration.ofSeconds(60));
        List<ValkeySettings> refused = List.of(
                settings("redis://limiter:wrong@127.0.0.1:" + server.port(), Optional.empty(), Optional.empty(),
                        Optional.empty()),
                settings("redis://127.0.0.1:" + server.port(), Optional.empty(), Optional.empty(), Optional.empty()),
                new ValkeySettings(ValkeySettings.Mode.STANDALONE, "redis://limiter:secret@127.0.0.1:" + server.port(),
                        List.of(), Optional.empty(), Optional.empty(), Optional.empty(), Duration.ofSeconds(2),
                        "other-app:", 4, Optional.empty(), Optional.empty()),
                // ACLs apply to the commands a script calls, not only to EVALSHA and EVAL
                settings("redis://script-only:secret@127.0.0.1:" + server.port(), Optional.empty(),
                        Optional.empty(), Optional.empty()));

        for (ValkeySettings settings : refused) {
            Store store = store(settings);
            for (int i = 0; i < 2; i++) {
                Verdict verdict = store.limiter.consume(bucket, "k");
                assertThat(verdict.outcome()).as("%s %s", settings.url(), settings.keyPrefix())
                        .isEqualTo(Outcome.UNAVAILABLE);
            }
            assertThat(store.monitor.errors()).as("%s %s", settings.url(), settings.keyPrefix()).isEqualTo(2);
            assertThatCode(() -> store.limiter.reset(bucket, "k")).doesNotThrowAnyException();
        }
        Jedis admin = admin(server);
        assertThat(admin.keys("*")).as("nothing was counted").isEmpty();
        assertThat(admin.aclLog()).as("the script's first command, PTTL, refused").anySatisfy(entry -> {
            assertThat(entry.getUsername()).isEqualTo("script-only");
            assertThat(entry.getContext()).isEqualTo("lua");
            assertThat(entry.getObject()).isEqualTo("pttl");
        });
    }

    @Test
    @DisplayName("a user of the fixed window's commands without SET: the probe fails (CONFIGURATION), so the breaker "
            + "keeps the store degraded, since the probe decides a token bucket too")
    void probeNeedsTheTokenBucketsCommands() {
        RedisServer server = aclServer();
        Store store = store(settings("redis://fixed-window:secret@127.0.0.1:" + server.port(), Optional.empty(),
                Optional.empty(), Optional.empty()));
        Bucket bucket = Bucket.of("acl-no-set", 5, Duration.ofSeconds(60));
        assertThat(remainingAfter(store.limiter, bucket, 1)).as("its fixed windows work").containsExactly(4L);

        assertThatThrownBy(store.store::probe).isInstanceOfSatisfying(StoreException.class,
                e -> assertThat(e.kind()).isEqualTo(FailureKind.CONFIGURATION));
        assertThat(admin(server).aclLog()).as("SET refused inside the probe's script").anySatisfy(entry -> {
            assertThat(entry.getUsername()).isEqualTo("fixed-window");
            assertThat(entry.getContext()).isEqualTo("lua");
            assertThat(entry.getObject()).isEqualTo("set");
        });
    }

    @Test
    @DisplayName("ACL user: takes, renews, gives back and resets a concurrency bucket's permits with only the granted "
            + "commands (the server logs no refusal); a user without permits.lua's commands is answered UNAVAILABLE")
    void aclUserPermits() {
        RedisServer server = aclServer();
        Store store = store(settings("redis://limiter:secret@127.0.0.1:" + server.port(), Optional.empty(),
                Optional.empty(), Optional.empty()));
        Bucket bucket = Bucket.concurrency("acl-permits", 2, Duration.ofSeconds(30),
                dev.ratelimiter.OutagePolicy.FALLBACK);
        StorePermit first = new StorePermit(bucket, "k", 1);
        StorePermit second = new StorePermit(bucket, "k", 2);

        assertThat(store.limiter.take(first).outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(store.limiter.take(second).remaining()).isZero();
        assertThat(store.limiter.take(new StorePermit(bucket, "k", 3)).outcome()).isEqualTo(Outcome.DENIED);
        assertThat(store.limiter.renew(List.of(first, second))).containsExactly(true, true);
        assertThat(store.limiter.giveBack(List.of(first))).isTrue();
        Jedis admin = admin(server);
        assertThat(admin.zcard("rl-test:{acl-permits:k}:permits")).isEqualTo(1);
        store.limiter.reset(bucket, "k");
        assertThat(admin.exists("rl-test:{acl-permits:k}:permits")).isFalse();
        assertThat(store.monitor.errors()).isZero();
        assertThat(refusals(admin)).as("commands the server refused the limiter user").isEmpty();

        Store fixedWindowOnly = store(settings("redis://fixed-window:secret@127.0.0.1:" + server.port(),
                Optional.empty(), Optional.empty(), Optional.empty()));
        assertThat(fixedWindowOnly.limiter.take(first).outcome()).isEqualTo(Outcome.UNAVAILABLE);
        assertThat(admin.aclLog()).as("the script's first command, TIME, refused").anySatisfy(entry -> {
            assertThat(entry.getUsername()).isEqualTo("fixed-window");
            assertThat(entry.getContext()).isEqualTo("lua");
            assertThat(entry.getObject()).isEqualTo("time");
        });
    }

    /** ACL LOG entries, less CLIENT SETINFO, which Redis 7.2+ and Valkey know and Jedis sends and ignores. */
    private static List<String> refusals(Jedis admin) {
        return admin.aclLog().stream()
                .filter(entry -> !"client|setinfo".equals(entry.getObject()))
                .map(AccessControlLogEntry::toString)
                .toList();
    }

    // ---------------------------------------------------------------- TLS

    private RedisProcess tlsServer(String certificate) {
        return started(RedisProcess.tls(
                "--tls-cert-file", certificates.resolve(certificate + ".crt").toString(),
                "--tls-key-file", certificates.resolve(certificate + ".key").toString(),
                "--tls-ca-cert-file", certificates.resolve("ca.crt").toString(),
                "--tls-auth-clients", "no"));
    }

    @Test
    @DisplayName("TLS (rediss://) with the CA in the trust store setting: counts")
    void tlsWithTrustStore() {
        RedisProcess server = tlsServer("server");
        Store store = store(settings("rediss://127.0.0.1:" + server.port(), Optional.empty(), Optional.empty(),
                Optional.of(certificates.resolve("trust.p12"))));
        Bucket bucket = Bucket.of("tls", 5, Duration.ofSeconds(60));

        assertThat(remainingAfter(store.limiter, bucket, 3)).containsExactly(4L, 3L, 2L);
        store.limiter.reset(bucket, "k");
        assertThat(store.limiter.consume(bucket, "k").remaining()).as("after reset").isEqualTo(4);
        assertThatCode(store.store::probe).doesNotThrowAnyException();
        assertThat(store.monitor.errors()).isZero();
    }

    @Test
    @DisplayName("TLS without the trust store setting (the JVM's default trust): consume answers UNAVAILABLE and throws nothing")
    void tlsWithoutTrustStore() {
        RedisProcess server = tlsServer("server");
        Store store = store(settings("rediss://127.0.0.1:" + server.port(), Optional.empty(), Optional.empty(),
                Optional.empty()));
        Bucket bucket = Bucket.of("tls-untrusted", 5, Duration.ofSeconds(60));

        for (int i = 0; i < 2; i++) {
            assertThat(store.limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.UNAVAILABLE);
        }
        assertThat(store.monitor.errors()).isEqualTo(2);
    }

    @Test
    @DisplayName("TLS with a trusted certificate that names another host: refused (the host name is checked), UNAVAILABLE")
    void tlsCertificateForAnotherHost() {
        RedisProcess server = tlsServer("elsewhere");
        Store store = store(settings("rediss://127.0.0.1:" + server.port(), Optional.empty(), Optional.empty(),
                Optional.of(certificates.resolve("trust.p12"))));
        Bucket bucket = Bucket.of("tls-elsewhere", 5, Duration.ofSeconds(60));

        for (int i = 0; i < 2; i++) {
            assertThat(store.limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.UNAVAILABLE);
        }
        assertThat(store.monitor.errors()).isEqualTo(2);
    }

    // ---------------------------------------------------------------- helpers

    private static ValkeySettings settings(String url, Optional<String> user, Optional<String> password,
                                           Optional<Path> trustStore) {
        return new ValkeySettings(ValkeySettings.Mode.STANDALONE, url, List.of(), Optional.empty(), user, password,
                Duration.ofSeconds(2), "rl-test:", 4, trustStore.map(Path::toString),
                trustStore.map(path -> TRUST_STORE_PASSWORD));
    }

    /** The bare store's limiter (no breaker, no fallback), so that a refusal shows as UNAVAILABLE. */
    private record Store(ValkeyStore store, Limiter limiter, BackendMonitor monitor) {
    }

    private Store store(ValkeySettings settings) {
        BackendMonitor monitor = new BackendMonitor("valkey", InstantSource.system(), RateLimiterMetrics.NONE);
        ValkeyStore store = started(ValkeyStore.start(settings));
        return new Store(store, new StoreLimiter(store, monitor, RateLimiterMetrics.NONE), monitor);
    }

    private static List<Long> remainingAfter(Limiter limiter, Bucket bucket, int attempts) {
        List<Long> remaining = new ArrayList<>();
        for (int i = 0; i < attempts; i++) {
            Verdict verdict = limiter.consume(bucket, "k");
            assertThat(verdict.outcome()).isEqualTo(Outcome.ALLOWED);
            remaining.add(verdict.remaining());
        }
        return remaining;
    }
}
