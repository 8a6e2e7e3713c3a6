package dev.ratelimiter.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The import rules of docs/architecture.md#layers-inside-limiter-impl, checked on the compiled classes of
 * limiter-api and limiter-impl, so a change that breaks one fails the build with the offending class named.
 */
class LayerRulesTest {

    private static final JavaClasses LIBRARY = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.ratelimiter");

    private static final String[] ADAPTERS = {"dev.ratelimiter.internal.cdi..", "dev.ratelimiter.internal.jaxrs..",
            "dev.ratelimiter.internal.health..", "dev.ratelimiter.internal.metrics.."};
    private static final String[] STORES = {"dev.ratelimiter.internal.valkey..", "dev.ratelimiter.internal.postgres.."};

    @Test
    @DisplayName("core is plain Java: no Jakarta, MicroProfile, store client, Vert.x, Micrometer, OpenTelemetry, JNDI "
            + "or JDBC type")
    void coreIsPlainJava() {
        noClasses().that().resideInAPackage("dev.ratelimiter.internal.core..")
                .should().dependOnClassesThat().resideInAnyPackage("jakarta..", "org.eclipse.microprofile..",
                        "redis.clients..", "org.postgresql..", "com.zaxxer..", "io.vertx..", "io.micrometer..",
                        "io.opentelemetry..", "io.smallrye..", "javax.naming..", "javax.sql..")
                .check(LIBRARY);
    }

    @Test
    @DisplayName("the metrics libraries (MicroProfile Metrics, Micrometer, OpenTelemetry; each optional) are touched "
            + "only in the metrics package")
    void metricsLibrariesStayInTheirAdapter() {
        noClasses().that().resideOutsideOfPackage("dev.ratelimiter.internal.metrics..")
                .should().dependOnClassesThat().resideInAnyPackage("org.eclipse.microprofile.metrics..",
                        "io.micrometer..", "io.opentelemetry..")
                .check(LIBRARY);
    }

    @Test
    @DisplayName("core knows neither the adapters above it nor the stores beside it")
    void coreDependsOnNoLayerAboveOrBeside() {
        noClasses().that().resideInAPackage("dev.ratelimiter.internal.core..")
                .should().dependOnClassesThat().resideInAnyPackage(concat(ADAPTERS, STORES))
                .check(LIBRARY);
    }

    @Test
    @DisplayName("a store imports core and its own client only: no adapter, no other store")
    void storesAreIndependent() {
        noClasses().that().resideInAPackage("dev.ratelimiter.internal.valkey..")
                .should().dependOnClassesThat().resideInAnyPackage(concat(ADAPTERS, "dev.ratelimiter.internal.postgres.."))
                .check(LIBRARY);
        noClasses().that().resideInAPackage("dev.ratelimiter.internal.postgres..")
                .should().dependOnClassesThat().resideInAnyPackage(concat(ADAPTERS, "dev.ratelimiter.internal.valkey.."))
                .check(LIBRARY);
    }

    @Test
    @DisplayName("Jedis is touched only in the valkey package, pgjdbc and HikariCP only in postgres (both optional)")
    void optionalClientsStayInTheirStore() {
        noClasses().that().resideOutsideOfPackage("dev.ratelimiter.internal.valkey..")
                .should().dependOnClassesThat().resideInAPackage("redis.clients..")
                .check(LIBRARY);
        noClasses().that().resideOutsideOfPackage("dev.ratelimiter.internal.postgres..")
                .should().dependOnClassesThat().resideInAnyPackage("org.postgresql..", "com.zaxxer..")
                .check(LIBRARY);
    }

    @Test
    @DisplayName("the JAX-RS, health and metrics adapters reach no store")
    void onlyTheCdiLayerBuildsStores() {
        noClasses().that().resideInAnyPackage("dev.ratelimiter.internal.jaxrs..", "dev.ratelimiter.internal.health..",
                        "dev.ratelimiter.internal.metrics..")
                .should().dependOnClassesThat().resideInAnyPackage(STORES)
                .check(LIBRARY);
    }

    @Test
    @DisplayName("limiter-api depends on the JDK and Jakarta APIs only, never on the implementation")
    void apiStandsAlone() {
        noClasses().that().resideInAPackage("dev.ratelimiter")
                .should().dependOnClassesThat().resideOutsideOfPackages("dev.ratelimiter", "java..", "jakarta..")
                .check(LIBRARY);
    }

    @Test
    @DisplayName("the store SPI is plain Java on limiter-api: a store author's compile path needs nothing else")
    void spiStandsOnTheApiAlone() {
        noClasses().that().resideInAPackage("dev.ratelimiter.spi..")
                .should().dependOnClassesThat().resideOutsideOfPackages("dev.ratelimiter", "dev.ratelimiter.spi..",
                        "java..")
                .check(LIBRARY);
    }

    @Test
    @DisplayName("no store package reaches the runtime's assembly: a store is built only through its provider")
    void storesDoNotAssembleTheChain() {
        noClasses().that().resideInAnyPackage(STORES)
                .should().dependOnClassesThat().haveFullyQualifiedName("dev.ratelimiter.internal.core.LimiterAssembly")
                .check(LIBRARY);
    }

    @Test
    @DisplayName("the CDI layer reaches no store: it finds each through its provider, by name")
    void cdiBuildsStoresOnlyThroughProviders() {
        noClasses().that().resideInAPackage("dev.ratelimiter.internal.cdi..")
                .should().dependOnClassesThat().resideInAnyPackage(STORES)
                .check(LIBRARY);
    }

    @Test
    @DisplayName("the surface says who it is for: the API and the store SPI never reach an internal class, and "
            + "outside dev.ratelimiter.internal only the JAX-RS feature an application registers does")
    void internalStaysInternal() {
        noClasses().that().resideInAnyPackage("dev.ratelimiter", "dev.ratelimiter.spi..")
                .should().dependOnClassesThat().resideInAPackage("dev.ratelimiter.internal..")
                .check(LIBRARY);
        noClasses().that().resideOutsideOfPackages("dev.ratelimiter.internal..", "dev.ratelimiter.jaxrs")
                .and().resideInAPackage("dev.ratelimiter..")
                .should().dependOnClassesThat().resideInAPackage("dev.ratelimiter.internal..")
                .check(LIBRARY);
    }

    private static String[] concat(String[] first, String... more) {
        String[] all = new String[first.length + more.length];
        System.arraycopy(first, 0, all, 0, first.length);
        System.arraycopy(more, 0, all, first.length, more.length);
        return all;
    }
}
