package dev.ratelimiter.cdi;

import dev.ratelimiter.RateLimiter;
import dev.ratelimiter.core.Backend;
import dev.ratelimiter.core.BackendMonitor;
import dev.ratelimiter.core.LimiterAssembly;
import dev.ratelimiter.core.LimiterSettings;
import dev.ratelimiter.core.OutsideTransactionLimiter;
import dev.ratelimiter.core.PeriodicSweeper;
import dev.ratelimiter.core.PostgresSettings;
import dev.ratelimiter.core.SharedStoreChain;
import dev.ratelimiter.core.Shutdown;
import dev.ratelimiter.postgres.PostgresBackend;
import dev.ratelimiter.spi.ConfigurationException;
import jakarta.enterprise.inject.Instance;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BooleanSupplier;

/**
 * The Valkey and PostgreSQL stores as they were built before their packages provided the store SPI. Transitional:
 * deleted, with {@link LimiterRuntime}'s fallback to it, once {@code valkey} and {@code postgres} register their
 * {@link dev.ratelimiter.spi.RateLimitStoreProvider}s, which the runtime then builds like any other store.
 */
final class BuiltInStores {

    private static final System.Logger LOG = System.getLogger(BuiltInStores.class.getName());

    private BuiltInStores() {
    }

    /**
     * @param name        {@code valkey} or {@code postgres}
     * @param settings    the settings, with the store's
     * @param beans       every bean, for the JTA status
     * @param dataSources every DataSource bean, for {@code ratelimiter.postgres.datasource}
     * @return the store, started by the assembly
     */
    static LimiterAssembly.SharedStore of(String name, LimiterSettings settings, Instance<Object> beans,
                                          Instance<DataSource> dataSources) {
        return new LimiterAssembly.SharedStore() {
            @Override
            public SharedStoreChain start(LimiterAssembly.ChainInputs in, Shutdown shutdown) {
                return postgres(in, shutdown);
            }

            @Override
            public boolean blocking() {
                return true;
            }

            private SharedStoreChain postgres(LimiterAssembly.ChainInputs in, Shutdown shutdown) {
                PostgresSettings postgresSettings = settings.postgres();
                PostgresBackend postgres = PostgresBackend.start(postgresSettings,
                        new PostgresDataSources(dataSources).resolve(postgresSettings), in.monitor(), in.metrics());
                shutdown.then(postgres);
                List<String> problems = postgres.check(postgresSettings.table());
                if (!problems.isEmpty()) {
                    throw new ConfigurationException(problems);
                }
                SharedStoreChain chain = SharedStoreChain.of(outsideTransactions(postgres.limiter(),
                        postgresSettings.timeout(), in.monitor(), beans), postgres.probe(), in.monitor(), in.clock(),
                        in.fallback(), in.outages(), settings.breaker(), settings.denyCache(), in.metrics());
                shutdown.first(new PeriodicSweeper(postgres.sweeper(), postgresSettings.sweepInterval(),
                        CdiStoreContext.serverDefault("java:comp/DefaultManagedScheduledExecutorService",
                                ScheduledExecutorService.class)));
                return chain;
            }
        };
    }

    /**
     * The PostgreSQL store, with its calls made inside a caller's JTA transaction moved to the server's managed
     * executor ({@link OutsideTransactionLimiter}), where the server has both a transaction manager and Jakarta
     * Concurrency; else the store as it is, relying on a non-transactional pool (checked at startup and, where the
     * connection shows it, at each call).
     */
    private static RateLimiter outsideTransactions(RateLimiter store, Duration timeout, BackendMonitor monitor,
                                                   Instance<Object> beans) {
        Optional<BooleanSupplier> inTransaction = JtaTransactions.detect(beans);
        if (inTransaction.isEmpty()) {
            return store;
        }
        Optional<ExecutorService> executor = CdiStoreContext.serverDefault("java:comp/DefaultManagedExecutorService",
                ExecutorService.class);
        if (executor.isEmpty()) {
            LOG.log(System.Logger.Level.INFO, "Rate limiter: no managed executor (Jakarta Concurrency), so "
                    + "PostgreSQL calls made inside a transaction use the caller's thread: the pool must be "
                    + "non-transactional");
            return store;
        }
        // The store's own deadline is at most a bulkhead wait plus a network timeout of 1.5 times the timeout.
        return new OutsideTransactionLimiter(store, inTransaction.get(), executor.get(),
                timeout.multipliedBy(3).plusMillis(100), monitor);
    }
}
