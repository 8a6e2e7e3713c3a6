package dev.ratelimiter.cdi;

import dev.ratelimiter.spi.ConfigurationException;
import dev.ratelimiter.core.PostgresSettings;
import dev.ratelimiter.postgres.LateBoundDataSource;
import dev.ratelimiter.postgres.PostgresChecks;
import jakarta.enterprise.inject.Default;
import jakarta.enterprise.inject.Instance;

import javax.naming.InitialContext;
import javax.naming.NameNotFoundException;
import javax.naming.NamingException;
import javax.sql.DataSource;
import java.lang.annotation.Annotation;
import java.util.List;
import java.util.Optional;

/** Finds the DataSource the PostgreSQL backend is to use, from the settings, JNDI and the CDI container. */
final class PostgresDataSources {

    private static final System.Logger LOG = System.getLogger(PostgresDataSources.class.getName());

    private final Instance<DataSource> dataSources;

    /** @param dataSources every DataSource bean ({@code @Any}) */
    PostgresDataSources(Instance<DataSource> dataSources) {
        this.dataSources = dataSources;
    }

    /**
     * The PostgreSQL DataSource: {@code ratelimiter.postgres.datasource} (a JNDI name, else the name of a CDI
     * DataSource bean, see {@link #namedBean}) wins, then
     * {@code ratelimiter.postgres.url} (empty here: the backend builds its own pool), then the application's CDI
     * {@code DataSource} bean.
     *
     * <p>A JNDI name that is not bound yet is not an error at this point: Payara binds an application's own
     * DataSources (glassfish-resources.xml, web.xml {@code <data-source>}) after CDI's {@code Startup} event, when
     * the application starts. It is then looked up again on use, and checked when it first resolves
     * ({@link LateBoundDataSource}). That holds only for the application's own names ({@code java:app/},
     * {@code java:module/}, {@code java:comp/}); a server's resource is bound before any application starts, so a
     * global name that is not bound is a mistake and fails the start, as does any other naming failure (no naming
     * service at all, an object that is not a DataSource).
     *
     * @return the DataSource to use; empty when {@code ratelimiter.postgres.url} asks for the library's own pool
     * @throws ConfigurationException naming the properties, when nothing suitable is found
     */
    Optional<DataSource> resolve(PostgresSettings settings) {
        if (settings.dataSource().isPresent()) {
            String name = settings.dataSource().get();
            try {
                return Optional.of(lookup(name));
            } catch (NamingException | ClassCastException e) {
                Optional<DataSource> named = namedBean(name);
                if (named.isPresent()) {
                    return named;
                }
                if (applicationScoped(name) && notBoundYet(e)) {
                    LOG.log(System.Logger.Level.INFO, "Rate limiter: nothing is bound at JNDI name ''{0}'' yet "
                            + "(an application''s own DataSource is bound when the application starts); looking it "
                            + "up on first use, and checking it then", name);
                    String table = settings.table();
                    return Optional.of(new LateBoundDataSource(name, () -> lookup(name),
                            found -> PostgresChecks.check(found, table)));
                }
                throw new ConfigurationException(List.of("ratelimiter.postgres.datasource: no DataSource at JNDI name '"
                        + name + "' (" + e.getMessage() + ") and no CDI DataSource bean of that name"));
            }
        }
        if (settings.url().isPresent()) {
            return Optional.empty();
        }
        Instance<DataSource> bean = dataSources.select(Default.Literal.INSTANCE);
        if (bean.isResolvable()) {
            return Optional.of(bean.get());
        }
        throw new ConfigurationException(List.of("ratelimiter.postgres.datasource or ratelimiter.postgres.url: "
                + "ratelimiter.backend=postgres needs a JNDI name, a JDBC URL, or one CDI DataSource bean "
                + (bean.isAmbiguous() ? "(there are several: name one)" : "(there is none)")));
    }

    /**
     * The CDI DataSource bean that carries a qualifier whose {@code value()} is {@code name}: where there is no
     * JNDI, how a named datasource is chosen (Quarkus: {@code @io.quarkus.agroal.DataSource("name")} for
     * {@code quarkus.datasource."name".*}; also {@code @Named} or {@code @Identifier}).
     */
    private Optional<DataSource> namedBean(String name) {
        for (Instance.Handle<DataSource> handle : dataSources.handles()) {
            for (Annotation qualifier : handle.getBean().getQualifiers()) {
                if (name.equals(qualifierValue(qualifier))) {
                    return Optional.of(handle.get());
                }
            }
        }
        return Optional.empty();
    }

    private static Object qualifierValue(Annotation qualifier) {
        try {
            return qualifier.annotationType().getMethod("value").invoke(qualifier);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null; // a qualifier without a value()
        }
    }

    private static boolean applicationScoped(String name) {
        return name.startsWith("java:app/") || name.startsWith("java:module/") || name.startsWith("java:comp/");
    }

    private static DataSource lookup(String name) throws NamingException {
        return (DataSource) new InitialContext().lookup(name);
    }

    /**
     * Whether a naming failure says only that the name is not bound (GlassFish wraps that in a NamingException of
     * its own; a NamingException's cause is its root exception).
     */
    private static boolean notBoundYet(Exception failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof NameNotFoundException) {
                return true;
            }
        }
        return false;
    }
}
