package dev.ratelimiter.internal.postgres;

import dev.ratelimiter.spi.Sweepable;
import dev.ratelimiter.internal.core.settings.SubtreeConfig;
import dev.ratelimiter.spi.ConfigurationException;
import dev.ratelimiter.spi.StoreConfig;
import dev.ratelimiter.spi.StoreContext;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import java.time.Duration;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Which DataSource the store uses, from the settings, JNDI and the application's beans as a {@link StoreContext}
 * offers them: the rules the CDI test (PostgresCdiTest) checks in a container, here without one.
 */
class PostgresDataSourcesTest {

    private final Map<String, String> properties = new HashMap<>();
    private final Map<String, DataSource> jndi = new HashMap<>();
    private final Map<String, DataSource> namedBeans = new HashMap<>();
    private Optional<DataSource> defaultBean = Optional.empty();
    private boolean naming = true;

    private final StoreContext context = new StoreContext() {
        private final StoreConfig config = new SubtreeConfig("postgres",
                name -> Optional.ofNullable(properties.get(name)));

        @Override
        public StoreConfig config() {
            return config;
        }

        @Override
        public InstantSource clock() {
            return InstantSource.system();
        }

        @Override
        public <T> Optional<T> bean(Class<T> type, Optional<String> name) {
            return (name.isPresent() ? Optional.ofNullable(namedBeans.get(name.get())) : defaultBean).map(type::cast);
        }

        @Override
        public <T> Optional<T> lookup(String jndiName, Class<T> type) {
            if (!naming) {
                throw new IllegalStateException("no naming service outside a server: cannot look up '" + jndiName
                        + "'");
            }
            return Optional.ofNullable(jndi.get(jndiName)).map(type::cast);
        }

        @Override
        public Optional<BooleanSupplier> transactionActive() {
            return Optional.empty();
        }

        @Override
        public Optional<ExecutorService> managedExecutor() {
            return Optional.empty();
        }

        @Override
        public void sweep(Sweepable sweepable, Duration interval) {
        }
    };

    private Optional<DataSource> resolve() {
        return PostgresDataSources.resolve(PostgresSettings.read(context.config()), context);
    }

    @Test
    @DisplayName("a JNDI name wins over a URL and the application's bean")
    void jndiNameWins() {
        DataSource bound = new PGSimpleDataSource();
        jndi.put("jdbc/limits__nontx", bound);
        defaultBean = Optional.of(new PGSimpleDataSource());
        properties.put("ratelimiter.postgres.datasource", "jdbc/limits__nontx");
        properties.put("ratelimiter.postgres.url", "jdbc:postgresql://db/app");

        assertThat(resolve()).containsSame(bound);
    }

    @Test
    @DisplayName("a name not bound in JNDI is a bean's qualifier where there is no JNDI (Quarkus' named datasource)")
    void namedBean() {
        DataSource named = new PGSimpleDataSource();
        namedBeans.put("limits", named);
        properties.put("ratelimiter.postgres.datasource", "limits");

        assertThat(resolve()).containsSame(named);
        naming = false;
        assertThat(resolve()).as("also with no naming service at all").containsSame(named);
    }

    @Test
    @DisplayName("an application's own JNDI name not bound yet is looked up on first use; a global one fails the start")
    void lateBinding() {
        properties.put("ratelimiter.postgres.datasource", "java:app/jdbc/limits");
        assertThat(resolve()).get().isInstanceOf(LateBoundDataSource.class);

        properties.put("ratelimiter.postgres.datasource", "jdbc/typo__nontx");
        assertThatThrownBy(this::resolve).isInstanceOf(ConfigurationException.class).hasMessageContaining(
                "ratelimiter.postgres.datasource: no DataSource at JNDI name 'jdbc/typo__nontx'");
    }

    @Test
    @DisplayName("no naming service fails the start even for an application's own name, saying why")
    void noNamingService() {
        naming = false;
        properties.put("ratelimiter.postgres.datasource", "java:app/jdbc/limits");

        assertThatThrownBy(this::resolve).isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("no DataSource at JNDI name 'java:app/jdbc/limits'")
                .hasMessageContaining("no naming service");
    }

    @Test
    @DisplayName("a URL asks for the library's own pool; else the application's only default bean; else the start fails naming both properties")
    void urlThenDefaultBean() {
        properties.put("ratelimiter.postgres.url", "jdbc:postgresql://db/app");
        assertThat(resolve()).isEmpty();

        properties.clear();
        DataSource bean = new PGSimpleDataSource();
        defaultBean = Optional.of(bean);
        assertThat(resolve()).containsSame(bean);

        defaultBean = Optional.empty();
        assertThatThrownBy(this::resolve).isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("ratelimiter.postgres.datasource or ratelimiter.postgres.url");
    }
}
