package dev.ratelimiter.cdi;

import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.RateLimitKey;
import dev.ratelimiter.RateLimited;
import dev.ratelimiter.core.LimiterSettings;
import dev.ratelimiter.core.SettingsReader;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class StartupValidatorTest {

    private static final Map<String, String> PROPERTIES = Map.of(
            "ratelimiter.buckets.api-authenticated.limit", "600",
            "ratelimiter.buckets.api-authenticated.window", "PT1M",
            "ratelimiter.buckets.api-anonymous.limit", "120",
            "ratelimiter.buckets.api-anonymous.window", "PT1M",
            "ratelimiter.buckets.login.limit", "5",
            "ratelimiter.buckets.login.window", "PT15M");
    private static final LimiterSettings SETTINGS =
            SettingsReader.read(name -> Optional.ofNullable(PROPERTIES.get(name)), PROPERTIES.keySet());

    static class GoodService {
        @RateLimited(bucket = "login")
        public void login(@RateLimitKey(normalize = KeyNormalization.LOGIN) String login, String password) {
        }

        @RateLimited(bucket = "api-anonymous")
        public void byIdentity() {
        }

        public void notLimited(int anything) {
        }
    }

    static class Costs {
        @RateLimited(bucket = "login", cost = 5)
        public void allOfIt(@RateLimitKey String login) {
        }

        @RateLimited(bucket = "login", cost = 0)
        public void check(@RateLimitKey String login) {
        }

        @RateLimited(bucket = "login", cost = 6)
        public void tooExpensive(@RateLimitKey String login) {
        }

        @RateLimited(bucket = "login", cost = -1)
        public void negative(@RateLimitKey String login) {
        }
    }

    static class UnknownBucket {
        @RateLimited(bucket = "logn")
        public void login(@RateLimitKey String login) {
        }
    }

    static class KeyOnInt {
        @RateLimited(bucket = "login")
        public void lookup(@RateLimitKey int id) {
        }
    }

    static class TwoKeys {
        @RateLimited(bucket = "login")
        public void lookup(@RateLimitKey String a, @RateLimitKey StringBuilder b) {
        }
    }

    @RateLimited(bucket = "missing-on-type")
    static class TypeLevel {
        public void any() {
        }
    }

    static class Subclass extends UnknownBucket {
    }

    /** Declares a method and no binding, as a generic CRUD base class would. */
    static class CrudBase {
        public String list() {
            return "";
        }

        private void helper() {
        }
    }

    @RateLimited(bucket = "imprts")
    static class ItemsResource extends CrudBase {
    }

    @SearchEndpoint
    static class Stereotyped extends CrudBase {
    }

    @jakarta.enterprise.inject.Stereotype
    @RateLimited(bucket = "serch")
    @java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)
    @interface SearchEndpoint {
    }

    @Test
    @DisplayName("configured buckets and CharSequence keys pass")
    void validMethods() {
        assertThat(StartupValidator.check(GoodService.class, SETTINGS)).isEmpty();
    }

    @Test
    @DisplayName("an unknown bucket names the bucket, the method and the properties to set")
    void unknownBucket() {
        assertThat(StartupValidator.check(UnknownBucket.class, SETTINGS)).singleElement().asString()
                .contains("bucket 'logn' is not configured")
                .contains(UnknownBucket.class.getName() + "#login(String)")
                .contains("ratelimiter.buckets.logn.limit");
    }

    @Test
    @DisplayName("@RateLimitKey on an int names the parameter and the method")
    void keyOnNonString() {
        assertThat(StartupValidator.check(KeyOnInt.class, SETTINGS)).singleElement().asString()
                .contains(KeyOnInt.class.getName() + "#lookup(int)")
                .contains("parameter 0 of type int").contains("CharSequence");
    }

    @Test
    @DisplayName("two @RateLimitKey parameters are refused")
    void twoKeys() {
        assertThat(StartupValidator.check(TwoKeys.class, SETTINGS)).singleElement().asString()
                .contains("more than one parameter");
    }

    @Test
    @DisplayName("a type-level @RateLimited is checked for its methods, and superclasses are walked")
    void typeLevelAndInherited() {
        assertThat(StartupValidator.check(TypeLevel.class, SETTINGS)).singleElement().asString()
                .contains("missing-on-type");
        assertThat(StartupValidator.check(Subclass.class, SETTINGS)).singleElement().asString()
                .contains("logn");
    }

    @Test
    @DisplayName("a class-level binding on a subclass is checked for the methods it inherits, named on the subclass")
    void classLevelCoversInheritedMethods() {
        assertThat(StartupValidator.check(ItemsResource.class, SETTINGS)).singleElement().asString()
                .contains("bucket 'imprts' is not configured")
                .contains(ItemsResource.class.getName() + "#list() (declared in " + CrudBase.class.getName() + ")");
        assertThat(StartupValidator.check(CrudBase.class, SETTINGS)).as("the base alone").isEmpty();
    }

    @Test
    @DisplayName("a stereotype's binding is checked like the interceptor reads it")
    void stereotypeChecked() {
        assertThat(StartupValidator.check(Stereotyped.class, SETTINGS)).singleElement().asString()
                .contains("bucket 'serch' is not configured");
    }

    @Test
    @DisplayName("the binding records the key parameter and its normalization")
    void binding() throws NoSuchMethodException {
        RateLimitedMethod method = RateLimitedMethod.of(GoodService.class,
                GoodService.class.getMethod("login", String.class, String.class)).orElseThrow();
        assertThat(method).isEqualTo(new RateLimitedMethod("login", 0, KeyNormalization.LOGIN, ResultType.PLAIN, 1));
        assertThat(RateLimitedMethod.of(GoodService.class, GoodService.class.getMethod("byIdentity")).orElseThrow()
                .keyParameter()).isEqualTo(-1);
        assertThat(RateLimitedMethod.of(GoodService.class, GoodService.class.getMethod("notLimited", int.class)))
                .isEmpty();
    }

    @Test
    @DisplayName("a cost below 0 or above the bucket's smallest limit fails the start, naming the method; 0 and the limit itself pass")
    void costs() {
        assertThat(StartupValidator.check(Costs.class, SETTINGS)).containsExactlyInAnyOrder(
                "@RateLimited(bucket = \"login\", cost = 6) on " + Costs.class.getName() + "#tooExpensive(String): "
                        + "cost 6 is out of range for bucket 'login': from 0 to 5 (the bucket's smallest limit)",
                "@RateLimited(bucket = \"login\", cost = -1) on " + Costs.class.getName() + "#negative(String): "
                        + "cost -1 is out of range for bucket 'login': from 0 to 5 (the bucket's smallest limit)");
    }
}
