package dev.ratelimiter.internal.valkey;

import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.net.ServerSocket;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The test servers' own start: a port taken between choosing and binding it is not a failed test. */
class RedisServerTest {

    @Test
    void a_port_taken_before_the_server_binds_it_is_replaced_by_a_fresh_one() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        try (ServerSocket taken = new ServerSocket(0);
             // The first attempt's --port (the later one wins) is a port someone holds, as in the race.
             RedisServer server = RedisServer.start(() -> attempts.incrementAndGet() == 1
                     ? new String[] {"--port", String.valueOf(taken.getLocalPort())} : new String[0]);
             Jedis client = new Jedis("127.0.0.1", server.port())) {
            assertThat(attempts).hasValue(2);
            assertThat(client.ping()).isEqualTo("PONG");
        }
    }

    @Test
    void a_port_taken_at_every_attempt_fails_with_the_servers_log() throws Exception {
        try (ServerSocket taken = new ServerSocket(0)) {
            assertThatThrownBy(() -> RedisServer.start("--port", String.valueOf(taken.getLocalPort())))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("exited before accepting connections")
                    .hasMessageContaining("Address already in use");
        }
    }
}
