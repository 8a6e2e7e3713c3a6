package dev.ratelimiter.it;

import dev.ratelimiter.testing.TcpProxy;
import dev.ratelimiter.testing.TestServers;

import java.net.URI;

/**
 * PostgreSQL behind a TCP proxy of the test's own, for a deployment whose own pool ({@code ratelimiter.postgres.url})
 * goes through it, so the test can cut the network ({@link TcpProxy#cut()}); the table in a schema of its own.
 */
public final class ProxiedPostgres implements AutoCloseable {

    private final PostgresSchema schema;
    private final TcpProxy proxy;

    /** Makes the schema {@code <prefix>_<random>} and starts the proxy. */
    public ProxiedPostgres(String prefix) {
        this.schema = PostgresSchema.create(prefix);
        URI server = URI.create(TestServers.postgres().url().substring("jdbc:".length()));
        this.proxy = TcpProxy.start(server.getHost(), server.getPort());
    }

    /** The properties of a deployment counting in the schema through the proxy, with the library's own pool. */
    public String config() {
        URI server = URI.create(TestServers.postgres().url().substring("jdbc:".length()));
        return schema.ownPool("jdbc:postgresql://127.0.0.1:" + proxy.port() + server.getRawPath()
                + (server.getRawQuery() == null ? "" : "?" + server.getRawQuery()));
    }

    /** Cuts the network: every connection reset, new ones refused. */
    public void cut() {
        proxy.cut();
    }

    @Override
    public void close() {
        proxy.close();
        schema.close();
    }
}
