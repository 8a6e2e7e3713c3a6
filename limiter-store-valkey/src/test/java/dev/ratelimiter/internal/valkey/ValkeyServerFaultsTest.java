package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.Verdict.Outcome;
import dev.ratelimiter.internal.core.monitor.BackendState;
import dev.ratelimiter.internal.core.settings.BreakerSettings;
import dev.ratelimiter.testing.LogCapture;
import dev.ratelimiter.testing.TcpProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.ClientType;
import redis.clients.jedis.params.ClientKillParams;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Level;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Valkey faults that are not an outage: the server answers, but not as a decision needs. A primary demoted to a
 * replica (READONLY), a full server that may not evict (OOM), rotated credentials (WRONGPASS, NOAUTH). Each
 * must keep readiness {@code degraded} steadily while decisions fail (the breaker's probe runs the decision's
 * script, so it fails too), with {@code lastError} naming the reply, and return to {@code ok} once fixed.
 */
class ValkeyServerFaultsTest {

    /** Long enough for two probes (after 1 s and 2 s more): the old read-only probe closed the breaker by then. */
    private static final Duration STEADY = Duration.ofSeconds(5);
    /** The longest back-off, then the probes that must succeed 1 s apart, and a margin. */
    private static final Duration RECOVERY = BreakerSettings.DEFAULTS.maxBackoff().plusSeconds(10);

    private final Started started = new Started();
    private final List<BackendState> changes = new CopyOnWriteArrayList<>();
    private ValkeyChain chain;

    private <T extends AutoCloseable> T started(T resource) {
        return started.add(resource);
    }

    @AfterEach
    void stop() throws Exception {
        started.close();
    }

    private ValkeyChain chain(String url) {
        chain = started(ValkeyChain.standalone(url));
        chain.monitor.onChange(status -> changes.add(status.state()));
        return chain;
    }

    private Jedis admin(int port) {
        return started(new Jedis("127.0.0.1", port));
    }

    @Test
    @DisplayName("primary demoted by REPLICAOF behind the same address: steadily degraded with READONLY, the fallback answers; REPLICAOF NO ONE: ok again within the back-off, counting on it")
    void demotedPrimarySameAddress() {
        RedisServer primary = started(RedisServer.start());
        RedisServer other = started(RedisServer.start());
        chain(primary.url());
        Bucket bucket = Bucket.of("demoted", 1_000, Duration.ofMinutes(5));
        assertThat(chain.limiter.consume(bucket, "k").remaining()).isEqualTo(999);

        Jedis admin = admin(primary.port());
        admin.replicaof("127.0.0.1", other.port());

        awaitDegraded(bucket);
        assertSteadilyDegraded(bucket, "READONLY");

        admin.replicaofNoOne();
        awaitOk(bucket);
        Verdict verdict = chain.limiter.consume(bucket, "k");
        assertThat(verdict.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(admin.get("rl-test:{demoted:k}")).as("counting on the primary again")
                .isEqualTo(String.valueOf(1_000 - verdict.remaining()));
        assertThat(changes).containsExactly(BackendState.DEGRADED, BackendState.OK);
    }

    @Test
    @DisplayName("primary demoted behind a proxy that then points at the new primary: the one READONLY reply drops the pooled connections, the next decision counts on the new primary, and the breaker never opens")
    void demotedPrimaryBehindProxy() {
        RedisServer oldPrimary = started(RedisServer.start());
        RedisServer newPrimary = started(RedisServer.start());
        TcpProxy proxy = started(TcpProxy.start("127.0.0.1", oldPrimary.port()));
        chain("redis://127.0.0.1:" + proxy.port());
        Bucket bucket = Bucket.of("moved-primary", 1_000, Duration.ofMinutes(5));
        for (int i = 0; i < 5; i++) {
            assertThat(chain.limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.ALLOWED);
        }
        assertThat(chain.monitor.errors()).isZero();

        admin(oldPrimary.port()).replicaof("127.0.0.1", newPrimary.port());
        proxy.forwardTo("127.0.0.1", newPrimary.port()); // as a DNS name or load balancer would follow
        assertThat(chain.limiter.consume(bucket, "k").outcome()).as("READONLY, answered by the fallback")
                .isEqualTo(Outcome.ALLOWED);
        assertThat(chain.outages.fallbacks(bucket.name())).isEqualTo(1);

        Verdict verdict = chain.limiter.consume(bucket, "k");
        assertThat(verdict.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(admin(newPrimary.port()).get("rl-test:{moved-primary:k}")).as("counting on the new primary")
                .isEqualTo(String.valueOf(1_000 - verdict.remaining()));
        assertThat(chain.monitor.errors()).as("failed calls: the first after the switch only").isEqualTo(1);
        assertThat(changes).as("the breaker never opened").isEmpty();
    }

    @Test
    @DisplayName("maxmemory reached with noeviction (OOM on INCR, reads still answered): steadily degraded with lastError naming OOM; memory freed: ok, the count kept")
    void fullServerNoEviction() {
        RedisServer server = started(RedisServer.start("--maxmemory-policy", "noeviction"));
        chain(server.url());
        Bucket bucket = Bucket.of("full", 1_000, Duration.ofMinutes(5));
        assertThat(chain.limiter.consume(bucket, "k").remaining()).isEqualTo(999);

        Jedis admin = admin(server.port());
        admin.configSet("maxmemory", "1");
        assertThat(admin.get("rl-test:{full:k}")).as("reads still answered").isEqualTo("1");

        awaitDegraded(bucket);
        assertSteadilyDegraded(bucket, "OOM");

        admin.configSet("maxmemory", "0");
        awaitOk(bucket);
        assertThat(admin.get("rl-test:{full:k}")).as("the count kept, then counting again")
                .isEqualTo(String.valueOf(1_000 - chain.limiter.consume(bucket, "k").remaining() - 1));
        assertThat(changes).containsExactly(BackendState.DEGRADED, BackendState.OK);
    }

    @Test
    @DisplayName("password rotated under the client (WRONGPASS on reconnect): steadily degraded naming WRONGPASS; the old password restored: ok")
    void passwordRotated() {
        RedisServer server = started(RedisServer.start("--requirepass", "old-secret"));
        chain("redis://:old-secret@127.0.0.1:" + server.port());
        Bucket bucket = Bucket.of("rotated", 1_000, Duration.ofMinutes(5));
        assertThat(chain.limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.ALLOWED);

        Jedis admin = admin(server.port());
        admin.auth("old-secret");
        admin.configSet("requirepass", "new-secret");
        killClients(admin); // as a server restarted with the new password

        awaitDegraded(bucket);
        assertSteadilyDegraded(bucket, "WRONGPASS");
        assertThat(chain.monitor.status().lastError()).hasValueSatisfying(error ->
                assertThat(error).doesNotContain("old-secret"));

        admin.configSet("requirepass", "old-secret");
        awaitOk(bucket);
        assertThat(changes).containsExactly(BackendState.DEGRADED, BackendState.OK);
    }

    @Test
    @DisplayName("a password set on a server the client reaches without one (NOAUTH): steadily degraded naming NOAUTH; the password removed: ok")
    void passwordRequired() {
        RedisServer server = started(RedisServer.start());
        chain(server.url());
        Bucket bucket = Bucket.of("noauth", 1_000, Duration.ofMinutes(5));
        assertThat(chain.limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.ALLOWED);

        Jedis admin = admin(server.port());
        admin.configSet("requirepass", "now-required");
        admin.auth("now-required");
        killClients(admin);

        awaitDegraded(bucket);
        assertSteadilyDegraded(bucket, "NOAUTH");

        admin.configSet("requirepass", "");
        awaitOk(bucket);
        assertThat(changes).containsExactly(BackendState.DEGRADED, BackendState.OK);
    }

    @Test
    @DisplayName("maxmemory-policy allkeys-lru or volatile-ttl: a warning at start that counters may be evicted; noeviction: none")
    void evictingPolicyWarned() {
        assertThat(warningsAtStart("allkeys-lru")).singleElement().asString()
                .contains("maxmemory-policy allkeys-lru").contains("noeviction");
        assertThat(warningsAtStart("volatile-ttl")).singleElement().asString()
                .contains("maxmemory-policy volatile-ttl");
        assertThat(warningsAtStart("noeviction")).isEmpty();
    }

    private List<String> warningsAtStart(String policy) {
        RedisServer server = started(RedisServer.start("--maxmemory-policy", policy));
        try (LogCapture log = LogCapture.of(EvictionPolicyCheck.class)) {
            started(ValkeyChain.standalone(server.url()));
            return log.messages(Level.WARNING);
        }
    }

    /** Closes every client connection but the admin's own: the pool must connect, and authenticate, anew. */
    private static void killClients(Jedis admin) {
        admin.clientKill(new ClientKillParams().type(ClientType.NORMAL).skipMe(ClientKillParams.SkipMe.YES));
    }

    /** Decides until the breaker opens; every answer comes from the fallback or the store, none throws. */
    private void awaitDegraded(Bucket bucket) {
        await("degraded").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> {
            assertThat(chain.limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.ALLOWED);
            return chain.degraded();
        });
        assertThat(chain.outages.fallbacks(bucket.name())).as("answered by the fallback").isPositive();
    }

    /** Degraded at every sample for {@link #STEADY}, while probes run; {@code lastError} names the reply. */
    private void assertSteadilyDegraded(Bucket bucket, String reply) {
        await("steadily degraded").during(STEADY).atMost(STEADY.plusSeconds(2))
                .pollInterval(Duration.ofMillis(100)).until(() -> {
                    assertThat(chain.limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.ALLOWED);
                    return chain.degraded();
                });
        assertThat(changes).as("no flapping").containsExactly(BackendState.DEGRADED);
        assertThat(chain.monitor.status().lastError()).hasValueSatisfying(error ->
                assertThat(error).contains(reply));
    }

    private void awaitOk(Bucket bucket) {
        await("ok again").atMost(RECOVERY).pollInterval(Duration.ofMillis(100)).until(() -> {
            assertThat(chain.limiter.consume(bucket, "k").outcome()).isEqualTo(Outcome.ALLOWED);
            return !chain.degraded();
        });
    }
}
