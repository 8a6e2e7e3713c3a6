package dev.ratelimiter.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.ratelimiter.RateLimiter;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noMethods;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The import rules of docs/architecture.md#layers-inside-limiter-impl, checked on the compiled classes of
 * limiter-api and limiter-impl, so a change that breaks one fails the build with the offending class named. Each store
 * module checks its own rules (its {@code StoreModuleRulesTest}).
 */
class LayerRulesTest {

    private static final JavaClasses LIBRARY = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.ratelimiter");

    private static final String[] ADAPTERS = {"dev.ratelimiter.internal.cdi..", "dev.ratelimiter.internal.jaxrs..",
            "dev.ratelimiter.internal.health..", "dev.ratelimiter.internal.metrics..",
            "dev.ratelimiter.internal.openapi.."};
    /** The library's own stores' packages, each in a module of its own (limiter-store-valkey, -postgres). */
    private static final String[] STORES = {"dev.ratelimiter.internal.valkey..", "dev.ratelimiter.internal.postgres.."};
    /** core's subpackages, each one job (docs/architecture.md#layers-inside-limiter-impl). */
    private static final List<String> CORE_PARTS = List.of("time", "key", "monitor", "verdict", "limiter", "memory",
            "settings", "chain", "plan", "decision");
    /** The CDI layer's subpackages, each one job (docs/architecture.md#layers-inside-limiter-impl). */
    private static final List<String> CDI_PARTS = List.of("config", "runtime", "call", "interceptor", "beans", "openapi",
            "startup");
    private static final String[] STORE_CLIENTS = {"redis.clients..", "org.postgresql..", "com.zaxxer.."};

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
    @DisplayName("MicroProfile OpenAPI (optional) is touched only by the openapi adapter and the filter an application "
            + "names, and the CDI layer never reaches them, so its beans load where MicroProfile OpenAPI is absent")
    void openApiStaysInItsAdapter() {
        noClasses().that().resideOutsideOfPackages("dev.ratelimiter.internal.openapi..", "dev.ratelimiter.openapi")
                .should().dependOnClassesThat().resideInAnyPackage("org.eclipse.microprofile.openapi..",
                        "dev.ratelimiter.internal.openapi..", "dev.ratelimiter.openapi..")
                .check(LIBRARY);
    }

    @Test
    @DisplayName("core knows no adapter above it")
    void coreDependsOnNoLayerAbove() {
        noClasses().that().resideInAPackage("dev.ratelimiter.internal.core..")
                .should().dependOnClassesThat().resideInAnyPackage(ADAPTERS)
                .check(LIBRARY);
    }

    @Test
    @DisplayName("core's parts by job: time, key, monitor and verdict stand alone, limiter on verdict, memory "
            + "on time, verdict and limiter, settings on key, plan on key, monitor and settings; chain, which assembles "
            + "them, reaches them all, and decision, the one path of every decision, reaches them and chain "
            + "(docs/architecture.md#layers-inside-limiter-impl)")
    void coreSubpackagesByJob() {
        Map<String, List<String>> allowed = Map.of(
                "time", List.of(),
                "key", List.of(),
                "monitor", List.of(),
                "verdict", List.of(),
                "limiter", List.of("verdict"),
                "memory", List.of("time", "verdict", "limiter"),
                "settings", List.of("key"),
                "chain", List.of("time", "key", "monitor", "verdict", "limiter", "memory", "settings"),
                "plan", List.of("key", "monitor", "settings"),
                "decision", List.of("time", "key", "monitor", "verdict", "limiter", "settings", "chain"));
        for (Map.Entry<String, List<String>> part : allowed.entrySet()) {
            String[] others = CORE_PARTS.stream()
                    .filter(other -> !other.equals(part.getKey()) && !part.getValue().contains(other))
                    .map(other -> "dev.ratelimiter.internal.core." + other + "..").toArray(String[]::new);
            if (others.length > 0) {
                noClasses().that().resideInAPackage("dev.ratelimiter.internal.core." + part.getKey() + "..")
                        .should().dependOnClassesThat().resideInAnyPackage(others)
                        .check(LIBRARY);
            }
        }
        assertThat(allowed.keySet()).as("a rule for every part").containsExactlyInAnyOrderElementsOf(CORE_PARTS);
    }

    @Test
    @DisplayName("the decision chain is internal: no class or interface of core is a public RateLimiter (the chain's "
            + "interface is core.limiter.Limiter), and the one RateLimiter of limiter-impl is the injectable bean, "
            + "cdi.beans.DecidingRateLimiter, which adapts the whole decision path to the API")
    void chainIsNoPublicRateLimiter() {
        noClasses().that().resideInAPackage("dev.ratelimiter.internal.core..")
                .should().beAssignableTo(RateLimiter.class)
                .check(LIBRARY);
        classes().that().areAssignableTo(RateLimiter.class).and().areNotInterfaces()
                .should().haveFullyQualifiedName("dev.ratelimiter.internal.cdi.beans.DecidingRateLimiter")
                .allowEmptyShould(false)
                .check(LIBRARY);
    }

    @Test
    @DisplayName("the in-memory store shows only its limiter: its key states, their table and the carry rule are "
            + "package-private, so only its own classes change their fields")
    void memoryStoreShowsOnlyItsLimiter() {
        classes().that().resideInAPackage("dev.ratelimiter.internal.core.memory")
                .and().doNotHaveFullyQualifiedName("dev.ratelimiter.internal.core.memory.MemoryRateLimiter")
                .should().notBePublic()
                .allowEmptyShould(false)
                .check(LIBRARY);
        classes().that().haveFullyQualifiedName("dev.ratelimiter.internal.core.memory.MemoryRateLimiter")
                .should().bePublic()
                .allowEmptyShould(false)
                .check(LIBRARY);
    }

    @Test
    @DisplayName("core has no class outside its parts")
    void coreIsItsParts() {
        classes().that().resideInAPackage("dev.ratelimiter.internal.core..")
                .should().resideInAnyPackage(CORE_PARTS.stream().map(part -> "dev.ratelimiter.internal.core." + part)
                        .toArray(String[]::new))
                .check(LIBRARY);
    }

    @Test
    @DisplayName("the CDI layer has no class outside its parts: config, runtime, call, interceptor, beans, openapi, startup")
    void cdiIsItsParts() {
        classes().that().resideInAPackage("dev.ratelimiter.internal.cdi..")
                .should().resideInAnyPackage(CDI_PARTS.stream().map(part -> "dev.ratelimiter.internal.cdi." + part)
                        .toArray(String[]::new))
                .check(LIBRARY);
    }

    @Test
    @DisplayName("the CDI layer's config part reads the configuration and reaches no other CDI part, so every part may "
            + "read the settings")
    void cdiConfigStandsAlone() {
        noClasses().that().resideInAPackage("dev.ratelimiter.internal.cdi.config..")
                .should().dependOnClassesThat().resideInAnyPackage(CDI_PARTS.stream()
                        .filter(part -> !part.equals("config"))
                        .map(part -> "dev.ratelimiter.internal.cdi." + part + "..").toArray(String[]::new))
                .check(LIBRARY);
    }

    @Test
    @DisplayName("limiter-impl reaches no store and no store client: a store is a module of its own, found through its "
            + "provider by name")
    void storesAreModulesOfTheirOwn() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage(STORES).check(LIBRARY);
        noClasses().should().dependOnClassesThat().resideInAnyPackage(STORE_CLIENTS).check(LIBRARY);
    }

    @Test
    @DisplayName("limiter-api depends on the JDK and Jakarta APIs only, never on the implementation")
    void apiStandsAlone() {
        noClasses().that().resideInAPackage("dev.ratelimiter")
                .should().dependOnClassesThat().resideOutsideOfPackages("dev.ratelimiter", "java..", "jakarta..")
                .check(LIBRARY);
    }

    @Test
    @DisplayName("store concerns are the SPI's, not the application API's: no sweep and no token-bucket arithmetic in "
            + "dev.ratelimiter (spi.Sweepable, spi.TokenBucketTiming)")
    void storeConcernsInTheSpi() {
        noClasses().that().resideInAPackage("dev.ratelimiter")
                .should().haveSimpleName("Sweepable").orShould().haveSimpleName("TokenBucketTiming")
                .check(LIBRARY);
        noMethods().that().areDeclaredInClassesThat().resideInAPackage("dev.ratelimiter").and().arePublic()
                .should().haveNameMatching("capacity|tokenIntervalMicros|sweep")
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
    @DisplayName("the surface says who it is for: the API and the store SPI never reach an internal class, and "
            + "outside dev.ratelimiter.internal only the JAX-RS feature and the OpenAPI filter an application registers "
            + "do")
    void internalStaysInternal() {
        noClasses().that().resideInAnyPackage("dev.ratelimiter", "dev.ratelimiter.spi..")
                .should().dependOnClassesThat().resideInAPackage("dev.ratelimiter.internal..")
                .check(LIBRARY);
        noClasses().that().resideOutsideOfPackages("dev.ratelimiter.internal..", "dev.ratelimiter.jaxrs",
                        "dev.ratelimiter.openapi")
                .and().resideInAPackage("dev.ratelimiter..")
                .should().dependOnClassesThat().resideInAPackage("dev.ratelimiter.internal..")
                .check(LIBRARY);
    }
}
