package dev.ratelimiter.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;

/**
 * Rules on the tests themselves, for mistakes that make a test run nowhere without failing.
 */
class TestRulesTest {

    private static final JavaClasses TESTS = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.ONLY_INCLUDE_TESTS)
            .importPackages("dev.ratelimiter");

    @Test
    @DisplayName("a jqwik @Property carries no JUnit Jupiter annotation: jqwik skips such a property (reporting it "
            + "skipped, not failed); its name goes in jqwik's @Label")
    void propertiesCarryNoJupiterAnnotation() {
        methods().that().areAnnotatedWith(net.jqwik.api.Property.class)
                .should().notBeAnnotatedWith(DisplayName.class)
                .andShould().notBeAnnotatedWith(Test.class)
                .allowEmptyShould(false)
                .check(TESTS);
    }
}
