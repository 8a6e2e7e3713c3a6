package dev.ratelimiter.it.payara;

import dev.ratelimiter.it.PostgresSchema;
import dev.ratelimiter.testing.TestServers;

/**
 * The example's PostgreSQL pool as an application declares it on Payara: {@code WEB-INF/glassfish-resources.xml}
 * (application-scoped resources), the driver from the WAR's WEB-INF/lib.
 */
final class PayaraPool {

    /** Where the pool is bound: an application name, so Payara binds it when the application starts. */
    static final String JNDI_NAME = "java:app/jdbc/ratelimiter";

    private PayaraPool() {
    }

    /** The example's configuration for this pool. */
    static String config() {
        return "ratelimiter.backend=postgres\nratelimiter.postgres.datasource=" + JNDI_NAME + "\n";
    }

    /**
     * The resources file: non-transactional connections (a counter must never join a transaction), READ
     * COMMITTED, the schema first in the search path. Payara wants a {@code password} property even when it is
     * empty.
     */
    static String glassfishResources(PostgresSchema schema) {
        return """
                <?xml version="1.0" encoding="UTF-8"?>
                <!DOCTYPE resources PUBLIC "-//GlassFish.org//DTD GlassFish Application Server 3.1 Resource Definitions//EN" "http://glassfish.org/dtds/glassfish-resources_1_5.dtd">
                <resources>
                  <jdbc-connection-pool name="java:app/ratelimiter-pool" res-type="javax.sql.DataSource"
                      datasource-classname="org.postgresql.ds.PGSimpleDataSource"
                      non-transactional-connections="true" transaction-isolation-level="read-committed"
                      steady-pool-size="2" max-pool-size="8">
                    <property name="URL" value="%s"/>
                    <property name="user" value="%s"/>
                    <property name="password" value="%s"/>
                    <property name="currentSchema" value="%s"/>
                  </jdbc-connection-pool>
                  <jdbc-resource jndi-name="%s" pool-name="java:app/ratelimiter-pool"/>
                </resources>
                """.formatted(xml(TestServers.postgres().url()), xml(TestServers.postgres().user()),
                xml(TestServers.postgres().password()), schema.name(), JNDI_NAME);
    }

    private static String xml(String text) {
        return text.replace("&", "&amp;").replace("\"", "&quot;").replace("<", "&lt;");
    }
}
