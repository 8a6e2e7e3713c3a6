package dev.ratelimiter.internal.postgres;

import javax.naming.NamingException;
import javax.sql.DataSource;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLNonTransientConnectionException;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.logging.Logger;

/**
 * A DataSource named in JNDI that was not bound yet when the library started. Payara binds an application's own
 * DataSources (a pool in {@code WEB-INF/glassfish-resources.xml}, a {@code <data-source>} in {@code web.xml})
 * when the application starts, after CDI's {@code Startup} event at which the library builds its limiter; so the
 * name is looked up again on each call until it resolves. Once it does, the startup checks
 * ({@link PostgresChecks}: autocommit, READ COMMITTED, the table) run on it once: if they find problems, every
 * call is refused with them (the store counts as failed, the outage policies decide, and readiness names the
 * problem), since the deployment can no longer be refused.
 */
public final class LateBoundDataSource implements DataSource {

    private static final System.Logger LOG = System.getLogger(LateBoundDataSource.class.getName());

    /** Looks the name up. */
    @FunctionalInterface
    public interface Lookup {
        /**
         * @return the DataSource bound at the name
         * @throws NamingException while nothing is bound there (the call is then answered as a store failure)
         */
        DataSource lookup() throws NamingException;
    }

    private final String name;
    private final Lookup lookup;
    private final Function<DataSource, List<String>> checks;
    private volatile DataSource target; // null until the name resolves
    private volatile String refusal; // the checks' problems, null when none

    /**
     * @param name   the JNDI name, for messages
     * @param lookup looks the name up; throws while it is not bound
     * @param checks the startup checks, run once on the DataSource when the name first resolves
     */
    public LateBoundDataSource(String name, Lookup lookup, Function<DataSource, List<String>> checks) {
        this.name = Objects.requireNonNull(name, "name");
        this.lookup = Objects.requireNonNull(lookup, "lookup");
        this.checks = Objects.requireNonNull(checks, "checks");
    }

    @Override
    public Connection getConnection() throws SQLException {
        return target().getConnection();
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
        return target().getConnection(user, password);
    }

    /**
     * The DataSource bound at the name, looked up (on the calling thread, which must have the application's JNDI
     * context) and checked if not yet.
     *
     * @throws SQLException while nothing is bound there, or when the checks refused what is
     */
    DataSource resolved() throws SQLException {
        return target();
    }

    private DataSource target() throws SQLException {
        DataSource resolved = target;
        if (resolved == null) {
            resolved = resolve();
        }
        String problems = refusal;
        if (problems != null) {
            throw new SQLNonTransientConnectionException(problems, "08004");
        }
        return resolved;
    }

    private synchronized DataSource resolve() throws SQLException {
        if (target != null) {
            return target;
        }
        DataSource found;
        try {
            found = lookup.lookup();
        } catch (NamingException | ClassCastException e) {
            throw new SQLNonTransientConnectionException("ratelimiter.postgres.datasource: no DataSource at JNDI "
                    + "name '" + name + "' (" + e.getMessage() + ")", "08001", e);
        }
        List<String> problems = checks.apply(found);
        if (!problems.isEmpty()) {
            refusal = String.join("; ", problems);
            LOG.log(System.Logger.Level.ERROR, "Rate limiter refuses the DataSource at JNDI name ''{0}'': {1}",
                    name, refusal);
        } else {
            LOG.log(System.Logger.Level.INFO, "Rate limiter: the DataSource at JNDI name ''{0}'' is bound and "
                    + "checked", name);
        }
        target = found;
        return found;
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return target().getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        target().setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        target().setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return target().getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException("java.util.logging is not used");
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        return type.isInstance(this) ? type.cast(this) : target().unwrap(type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) throws SQLException {
        return type.isInstance(this) || target().isWrapperFor(type);
    }
}
