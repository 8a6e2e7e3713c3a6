package dev.ratelimiter.internal.postgres;

import dev.ratelimiter.Algorithm;
import dev.ratelimiter.Bucket;
import dev.ratelimiter.spi.ConfigurationException;
import dev.ratelimiter.spi.RateLimitStore;
import dev.ratelimiter.spi.RateLimitStoreProvider;
import dev.ratelimiter.spi.StoreConfig;
import dev.ratelimiter.spi.StoreContext;

import javax.sql.DataSource;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.function.BooleanSupplier;

/**
 * The PostgreSQL store, {@code ratelimiter.backend=postgres} (docs/stores.md#the-postgresql-backend): a counter table
 * reached through a server's DataSource (a JNDI name or a bean) or the library's own pool on a JDBC URL.
 */
public final class PostgresStoreProvider implements RateLimitStoreProvider {

    private static final System.Logger LOG = System.getLogger(PostgresStoreProvider.class.getName());

    /** Found by {@link java.util.ServiceLoader}, or made directly. */
    public PostgresStoreProvider() {
    }

    /** {@code postgres}. */
    @Override
    public String name() {
        return "postgres";
    }

    /**
     * All four: fixed windows; token buckets in rows of their own (docs/stores.md#token-bucket-rows);
     * sliding windows in rows of their own (docs/stores.md#sliding-window-rows); concurrency limits, whose permits
     * are rows of their own too ({@link PermitStatements}, docs/stores.md#permits).
     */
    @Override
    public Set<Algorithm> algorithms() {
        return EnumSet.of(Algorithm.FIXED_WINDOW, Algorithm.TOKEN_BUCKET,
                Algorithm.SLIDING_WINDOW, Algorithm.CONCURRENCY);
    }

    /**
     * True: refunds are one {@code UPDATE} of the rows counted (docs/stores.md#refunds), on the table the migration
     * makes.
     */
    @Override
    public boolean refunds() {
        return true;
    }

    @Override
    public boolean debits() {
        return true;
    }

    /** A calendar window's length per call: {@code CalendarPeriods.windowMillis}. */
    @Override
    public boolean calendarWindows() {
        return true;
    }

    /** {@code datasource}, {@code url}, {@code user}, {@code password}, {@code table}, {@code timeout}, ... */
    @Override
    public Set<String> propertyNames() {
        return PostgresSettings.PROPERTY_NAMES;
    }

    /**
     * Reads {@code ratelimiter.postgres.*}, finds the DataSource ({@link PostgresDataSources}), builds the store,
     * runs the startup checks ({@link PostgresChecks}), sweeps ended counters every
     * {@code ratelimiter.postgres.sweep-interval}, and moves calls made inside a caller's JTA transaction to the
     * server's managed executor where the server has both.
     *
     * @throws ConfigurationException for settings out of range, no DataSource to use, or a DataSource or table
     *                                that fails the checks (the pool the store made is closed first)
     */
    @Override
    public RateLimitStore create(StoreContext context) {
        StoreConfig config = context.config();
        PostgresSettings settings = PostgresSettings.read(config);
        config.check();
        Optional<DataSource> dataSource = PostgresDataSources.resolve(settings, context);
        PostgresStore store = PostgresStore.start(settings, dataSource, context.clock());
        List<String> problems = store.check();
        if (!problems.isEmpty()) {
            store.close();
            throw new ConfigurationException(problems);
        }
        context.sweep(store, settings.sweepInterval());
        return outsideTransactions(store, context);
    }

    /**
     * The store, with its calls made inside a caller's JTA transaction moved to the server's managed executor
     * ({@link OutsideTransactionStore}), where the server has both a transaction manager and Jakarta Concurrency;
     * else the store as it is, relying on a non-transactional pool (checked at startup and, where the connection
     * shows it, at each call).
     */
    private static RateLimitStore outsideTransactions(PostgresStore store, StoreContext context) {
        Optional<BooleanSupplier> inTransaction = context.transactionActive();
        if (inTransaction.isEmpty()) {
            return store;
        }
        Optional<ExecutorService> executor = context.managedExecutor();
        if (executor.isEmpty()) {
            LOG.log(System.Logger.Level.INFO, "Rate limiter: no managed executor (Jakarta Concurrency), so "
                    + "PostgreSQL calls made inside a transaction use the caller's thread: the pool must be "
                    + "non-transactional");
            return store;
        }
        return new OutsideTransactionStore(store, inTransaction.get(), executor.get(), store.deadline());
    }
}
