package dev.ratelimiter.internal.postgres;

import dev.ratelimiter.spi.ConfigurationException;
import dev.ratelimiter.spi.StoreContext;

import javax.naming.NameNotFoundException;
import javax.sql.DataSource;
import java.util.List;
import java.util.Optional;

/** Finds the DataSource the PostgreSQL store is to use, from the settings, JNDI and the application's beans. */
final class PostgresDataSources {

    private static final System.Logger LOG = System.getLogger(PostgresDataSources.class.getName());

    private PostgresDataSources() {
    }

    /**
     * The PostgreSQL DataSource: {@code ratelimiter.postgres.datasource} (a JNDI name, else the name of a
     * DataSource bean, see {@link StoreContext#bean}) wins, then {@code ratelimiter.postgres.url} (empty here: the
     * store builds its own pool), then the application's only default {@code DataSource} bean.
     *
     * <p>A JNDI name that is not bound yet is not an error at this point: Payara binds an application's own
     * DataSources (glassfish-resources.xml, web.xml {@code <data-source>}) after CDI's {@code Startup} event, when
     * the application starts. It is then looked up again on use, and checked when it first resolves
     * ({@link LateBoundDataSource}). That holds only for the application's own names ({@code java:app/},
     * {@code java:module/}, {@code java:comp/}); a server's resource is bound before any application starts, so a
     * global name that is not bound is a mistake and fails the start, as does any other naming failure (no naming
     * service at all, an object that is not a DataSource).
     *
     * @param settings {@code ratelimiter.postgres.*}
     * @param context  the server's beans and JNDI
     * @return the DataSource to use; empty when {@code ratelimiter.postgres.url} asks for the library's own pool
     * @throws ConfigurationException naming the properties, when nothing suitable is found
     */
    static Optional<DataSource> resolve(PostgresSettings settings, StoreContext context) {
        if (settings.dataSource().isPresent()) {
            String name = settings.dataSource().get();
            String failure;
            boolean notBound;
            try {
                Optional<DataSource> found = context.lookup(name, DataSource.class);
                if (found.isPresent()) {
                    return found;
                }
                failure = "nothing is bound there";
                notBound = true;
            } catch (IllegalStateException e) {
                failure = e.getMessage();
                notBound = false;
            }
            Optional<DataSource> named = context.bean(DataSource.class, Optional.of(name));
            if (named.isPresent()) {
                return named;
            }
            if (applicationScoped(name) && notBound) {
                LOG.log(System.Logger.Level.INFO, "Rate limiter: nothing is bound at JNDI name ''{0}'' yet "
                        + "(an application''s own DataSource is bound when the application starts); looking it "
                        + "up on first use, and checking it then", name);
                String table = settings.table();
                return Optional.of(new LateBoundDataSource(name, () -> lateLookup(context, name),
                        found -> PostgresChecks.check(found, table)));
            }
            throw new ConfigurationException(List.of("ratelimiter.postgres.datasource: no DataSource at JNDI name '"
                    + name + "' (" + failure + ") and no CDI DataSource bean of that name"));
        }
        if (settings.url().isPresent()) {
            return Optional.empty();
        }
        Optional<DataSource> bean = context.bean(DataSource.class, Optional.empty());
        if (bean.isPresent()) {
            return bean;
        }
        throw new ConfigurationException(List.of("ratelimiter.postgres.datasource or ratelimiter.postgres.url: "
                + "ratelimiter.backend=postgres needs a JNDI name, a JDBC URL, or one CDI DataSource bean "
                + "(there is none, or there are several: name one)"));
    }

    private static DataSource lateLookup(StoreContext context, String name) throws NameNotFoundException {
        try {
            return context.lookup(name, DataSource.class)
                    .orElseThrow(() -> new NameNotFoundException("nothing is bound there yet"));
        } catch (IllegalStateException e) {
            NameNotFoundException failure = new NameNotFoundException(e.getMessage());
            failure.setRootCause(e);
            throw failure;
        }
    }

    private static boolean applicationScoped(String name) {
        return name.startsWith("java:app/") || name.startsWith("java:module/") || name.startsWith("java:comp/");
    }
}
