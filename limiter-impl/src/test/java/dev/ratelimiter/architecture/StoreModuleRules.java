package dev.ratelimiter.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import net.jqwik.api.Property;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;

/**
 * The rules every store module checks on its own classes (docs/architecture.md#modules), so the module's build fails
 * naming the class that breaks one: a store is built on the store SPI and the API alone, as a third party's would
 * be, and its tests run where they are written.
 */
public final class StoreModuleRules {

    private StoreModuleRules() {
    }

    /**
     * The store's main classes depend only on its own package, the API ({@code dev.ratelimiter}), the store SPI
     * ({@code dev.ratelimiter.spi}), the JDK and its client: no class of limiter-impl's internals, no other store.
     *
     * @param storePackage   the store's package, {@code dev.ratelimiter.internal.valkey}
     * @param clientPackages the packages its client libraries live in, as ArchUnit patterns ({@code redis.clients..})
     * @throws AssertionError naming each dependency that breaks the rule
     */
    public static void onlySpiApiAndClient(String storePackage, String... clientPackages) {
        JavaClasses main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
                .importPackages(storePackage);
        List<String> allowed = new ArrayList<>(List.of(storePackage + "..", "dev.ratelimiter", "dev.ratelimiter.spi..",
                "java..", "javax.."));
        allowed.addAll(List.of(clientPackages));
        classes().that().resideInAPackage(storePackage + "..")
                .should().onlyDependOnClassesThat().resideInAnyPackage(allowed.toArray(String[]::new))
                .allowEmptyShould(false)
                .check(main);
    }

    /**
     * A jqwik {@code @Property} of the module's tests carries no JUnit Jupiter annotation (jqwik would skip it,
     * reporting it skipped rather than failed), as limiter-impl's TestRulesTest checks for its own.
     *
     * @param testPackage the package of the module's tests
     */
    public static void propertiesCarryNoJupiterAnnotation(String testPackage) {
        JavaClasses tests = new ClassFileImporter().withImportOption(ImportOption.Predefined.ONLY_INCLUDE_TESTS)
                .importPackages(testPackage);
        methods().that().areAnnotatedWith(Property.class)
                .should().notBeAnnotatedWith(DisplayName.class)
                .andShould().notBeAnnotatedWith(Test.class)
                .allowEmptyShould(true)
                .check(tests);
    }
}
