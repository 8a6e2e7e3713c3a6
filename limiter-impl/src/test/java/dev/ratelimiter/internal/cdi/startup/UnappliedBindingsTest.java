package dev.ratelimiter.internal.cdi.startup;

import dev.ratelimiter.RateLimitKey;
import dev.ratelimiter.RateLimited;
import dev.ratelimiter.internal.cdi.CdiContainer;
import dev.ratelimiter.spi.ConfigurationException;
import jakarta.enterprise.context.ApplicationScoped;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A {@code @RateLimited} no container would apply fails the deployment, one rule on every server
 * (docs/guide.md#where-ratelimited-applies).
 */
class UnappliedBindingsTest {

    static class MethodLevel {
        @RateLimited(bucket = "login")
        private void hidden(@RateLimitKey String key) {
        }

        @RateLimited(bucket = "login")
        public static void shared(@RateLimitKey String key) {
        }

        @RateLimited(bucket = "login")
        public final void sealed(@RateLimitKey String key) {
        }

        @RateLimited(bucket = "login")
        public void applied(@RateLimitKey String key) {
        }

        public final void notLimited() {
        }

        private static void helper() {
        }
    }

    @RateLimited(bucket = "login")
    static class ClassLevel {
        public void applied() {
        }

        public final void sealed() {
        }

        public static ClassLevel create() {
            return new ClassLevel();
        }

        private void helper() {
        }

        private static void staticHelper() {
        }
    }

    @RateLimited(bucket = "login")
    static final class FinalClass {
        public void applied() {
        }
    }

    static class Inherits extends ClassLevel {
        @Override
        public void applied() {
        }
    }

    static class Unlimited {
        public final void sealed() {
        }

        private void helper() {
        }

        public static void create() {
        }
    }

    @Test
    @DisplayName("a binding on a private, static or final method fails the deployment, naming the method and what "
            + "to change; the others pass")
    void methodLevel() {
        String type = MethodLevel.class.getName();
        UnappliedBindings found = UnappliedBindings.of(MethodLevel.class);
        assertThat(found.errors()).containsExactlyInAnyOrder(
                "@RateLimited on " + type + "#hidden(String), a private method: no container intercepts a private "
                        + "method, so its calls would never be counted; make it package-private, protected or "
                        + "public, and call it on the bean, not on this",
                "@RateLimited on " + type + "#shared(String), a static method: Payara and Open Liberty (Weld) never "
                        + "intercept a static method, so it would be counted on Quarkus only; make it an instance "
                        + "method of the bean",
                "@RateLimited on " + type + "#sealed(String), a final method: Payara and Open Liberty (Weld) "
                        + "cannot intercept it, so it would be counted on Quarkus only; remove final");
        assertThat(found.warnings()).isEmpty();
    }

    @Test
    @DisplayName("a class's binding: a final method it covers fails, a public static method is warned about, "
            + "private methods are left alone; a subclass inherits the rule")
    void classLevel() {
        String type = ClassLevel.class.getName();
        UnappliedBindings found = UnappliedBindings.of(ClassLevel.class);
        assertThat(found.errors()).containsExactly("@RateLimited on " + type + " covers " + type + "#sealed(), a "
                + "final method: Payara and Open Liberty (Weld) cannot intercept it, so it would be counted on Quarkus "
                + "only; remove final");
        assertThat(found.warnings()).containsExactly(type + "#create() is static: the @RateLimited of " + type
                + " does not apply to it on any server, so its calls are not counted");

        String sub = Inherits.class.getName();
        UnappliedBindings inherited = UnappliedBindings.of(Inherits.class);
        assertThat(inherited.errors()).containsExactly("@RateLimited on " + sub + " covers " + sub + "#sealed() "
                + "(declared in " + type + "), a final method: Payara and Open Liberty (Weld) cannot intercept it, so "
                + "it would be counted on Quarkus only; remove final");
        assertThat(inherited.warnings()).singleElement().asString().startsWith(sub + "#create() (declared in ");
    }

    @Test
    @DisplayName("a final class with a binding fails; a class without any binding has nothing to say")
    void finalClassAndUnlimited() {
        assertThat(UnappliedBindings.of(FinalClass.class).errors()).containsExactly("@RateLimited on "
                + FinalClass.class.getName() + ", a final class: Payara and Open Liberty (Weld) cannot intercept its "
                + "methods, so they would be counted on Quarkus only; remove final from the class");
        assertThat(UnappliedBindings.of(Unlimited.class)).isEqualTo(
                new UnappliedBindings(List.of(), List.of()));
    }

    @ApplicationScoped
    static class PrivateBean {
        @RateLimited(bucket = "login")
        private void hidden(@RateLimitKey String key) {
        }

        public void call(String key) {
            hidden(key);
        }
    }

    @Test
    @DisplayName("on Weld, a private method's binding fails the start with the library's message (Weld itself "
            + "ignores it)")
    void weldDeployment() {
        assertThatThrownBy(() -> CdiContainer.start(Map.of("ratelimiter.buckets.login.limit", "1",
                "ratelimiter.buckets.login.window", "PT1M"), PrivateBean.class).close())
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("@RateLimited on " + PrivateBean.class.getName() + "#hidden(String), a private "
                        + "method: no container intercepts a private method");
    }
}
