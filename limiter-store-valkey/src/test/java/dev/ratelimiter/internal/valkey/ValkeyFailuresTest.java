package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.spi.FailureKind;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisClusterOperationException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

import java.net.SocketTimeoutException;

import static org.assertj.core.api.Assertions.assertThat;

/** The server's error replies as the store classifies them (the replies as Redis 7 and Valkey 8 send them). */
class ValkeyFailuresTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "READONLY You can't write against a read only replica.|RECONNECT",
        "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.|RECONNECT",
        "OOM command not allowed when used memory > 'maxmemory'. script: a37b3e80, on @user_script:1.|CONFIGURATION",
        "NOAUTH Authentication required.|CONFIGURATION",
        "NOPERM User limiter has no permissions to run the 'incr' command|CONFIGURATION",
        "ERR The user executing the script can't run this command or subcommand script: 66480fbf, on @user_script:1.|CONFIGURATION",
        "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk.|CONFIGURATION",
        "LOADING Redis is loading the dataset in memory|TRANSIENT",
        "CLUSTERDOWN The cluster is down|TRANSIENT"})
    @DisplayName("an error reply is classified by its code")
    void errorReply(String reply, FailureKind kind) {
        assertThat(ValkeyFailures.classify(new JedisDataException(reply))).isEqualTo(kind);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"WRONGPASS invalid username-password pair or user is disabled."})
    @DisplayName("credentials refused while the pool connects: configuration")
    void refusedAtConnect(String reply) {
        JedisException borrowFailed = new JedisException("Could not get a resource from the pool",
                new JedisAccessControlException(reply));
        assertThat(ValkeyFailures.classify(borrowFailed)).isEqualTo(FailureKind.CONFIGURATION);
    }

    @Test
    @DisplayName("a cluster call's own reply, kept among the suppressed, is the one classified")
    void clusterAttemptKeptAmongSuppressed() {
        JedisClusterOperationException failure = new JedisClusterOperationException("No more cluster attempts left.");
        failure.addSuppressed(new JedisDataException("READONLY You can't write against a read only replica."));
        assertThat(ValkeyFailures.classify(failure)).isEqualTo(FailureKind.RECONNECT);
    }

    @Test
    @DisplayName("a read timeout is transient")
    void timeoutIsTransient() {
        assertThat(ValkeyFailures.classify(new JedisConnectionException(new SocketTimeoutException("Read timed out"))))
                .isEqualTo(FailureKind.TRANSIENT);
    }
}
