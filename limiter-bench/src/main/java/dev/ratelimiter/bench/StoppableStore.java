package dev.ratelimiter.bench;

import dev.ratelimiter.internal.core.monitor.RateLimiterMetrics;
import dev.ratelimiter.internal.valkey.RedisServer;

import java.time.Duration;
import javax.sql.DataSource;

/**
 * A store server of the benchmark's own that the outage section can stop (SIGSTOP: sockets stay open and nothing
 * answers) and continue (SIGCONT). A new store is one more implementation in {@link OutageSection}'s list.
 */
interface StoppableStore extends AutoCloseable {

    String name();

    /** The library's store on this server, with the given deadline. */
    LibraryPaths.Store store(Duration deadline, RateLimiterMetrics metrics) throws Exception;

    void stop() throws Exception;

    void resume() throws Exception;

    /** Valkey: the tests' {@link RedisServer}. */
    static StoppableStore valkey() {
        RedisServer server = RedisServer.start();
        return new StoppableStore() {
            @Override
            public String name() {
                return "Valkey";
            }

            @Override
            public LibraryPaths.Store store(Duration deadline, RateLimiterMetrics metrics) {
                return LibraryPaths.valkey(server.url(), deadline, metrics);
            }

            @Override
            public void stop() {
                server.pause();
            }

            @Override
            public void resume() {
                server.resume();
            }

            @Override
            public void close() {
                server.close();
            }
        };
    }

    /** PostgreSQL: a throwaway cluster, its counter table made by the library's migration. */
    static StoppableStore postgres() throws Exception {
        return postgres(PostgresCluster.start(), true);
    }

    /**
     * PostgreSQL on a cluster already started (the smoke run's one cluster), in a database of its own; the cluster is
     * continued if stopped, but left running when this closes.
     */
    static StoppableStore postgres(PostgresCluster cluster) throws Exception {
        return postgres(cluster, false);
    }

    private static StoppableStore postgres(PostgresCluster cluster, boolean owned) throws Exception {
        String jdbcUrl = owned ? cluster.jdbcUrl() : cluster.createDatabase("outage");
        DataSource pool = LibraryPaths.postgresPool(jdbcUrl);
        try {
            PostgresStatements.migrate(pool);
        } finally {
            LibraryPaths.closePool(pool);
        }
        return new StoppableStore() {
            @Override
            public String name() {
                return "PostgreSQL";
            }

            @Override
            public LibraryPaths.Store store(Duration deadline, RateLimiterMetrics metrics) {
                return LibraryPaths.postgres(jdbcUrl, deadline, metrics);
            }

            @Override
            public void stop() throws Exception {
                cluster.signal("-STOP");
            }

            @Override
            public void resume() throws Exception {
                cluster.signal("-CONT");
            }

            @Override
            public void close() throws Exception {
                if (owned) {
                    cluster.close();
                } else {
                    cluster.signal("-CONT"); // a no-op unless the section failed while it was stopped
                }
            }
        };
    }
}
