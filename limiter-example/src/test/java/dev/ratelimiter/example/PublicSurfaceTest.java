package dev.ratelimiter.example;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The example is the application a user writes: it must need nothing of the library's implementation, only
 * limiter-api (and the JAX-RS feature, where an application lists its providers), as docs/architecture.md#modules
 * promises. A class of {@code dev.ratelimiter.internal} used here would be an API the library does not mean to keep.
 */
class PublicSurfaceTest {

    private static final JavaClasses EXAMPLE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.ratelimiter.example");

    @Test
    @DisplayName("the example application uses no class of dev.ratelimiter.internal, nor the store SPI")
    void applicationUsesThePublicApiOnly() {
        noClasses().that().resideInAPackage("dev.ratelimiter.example..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.ratelimiter.internal..",
                        "dev.ratelimiter.spi..")
                .check(EXAMPLE);
    }
}
