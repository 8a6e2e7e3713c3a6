package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimitExceededException;
import dev.ratelimiter.RateLimited;
import dev.ratelimiter.internal.cdi.call.RequestIdentity;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.control.RequestContextController;
import jakarta.enterprise.inject.Stereotype;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The binding the container applied is the one counted: a class-level binding on a subclass covers the methods it
 * inherits, a stereotype carries one, a method-level binding replaces a class-level one, and two beans inheriting
 * one method count in their own buckets.
 */
class InheritedBindingTest {

    /** An unannotated base class, as a generic CRUD resource would be. */
    public static class CrudBase {
        public String list() {
            return "listed";
        }
    }

    @ApplicationScoped
    @RateLimited(bucket = "imports")
    public static class Items extends CrudBase {
    }

    @ApplicationScoped
    @RateLimited(bucket = "search")
    public static class Tags extends CrudBase {
    }

    /** A stereotype of the application's, carrying the binding. */
    @Stereotype
    @RateLimited(bucket = "search")
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.TYPE)
    public @interface SearchEndpoint {
    }

    @ApplicationScoped
    @SearchEndpoint
    public static class Stereotyped {
        public String find() {
            return "found";
        }
    }

    @ApplicationScoped
    @RateLimited(bucket = "imports")
    public static class Mixed {
        @RateLimited(bucket = "search")
        public String narrow() {
            return "narrow";
        }

        public String wide() {
            return "wide";
        }
    }

    private CdiContainer cdi;

    @AfterEach
    void stop() {
        if (cdi != null) {
            cdi.close();
        }
    }

    private void start() {
        cdi = CdiContainer.start(Map.of(
                        "ratelimiter.buckets.imports.limit", "3",
                        "ratelimiter.buckets.imports.window", "PT1H",
                        "ratelimiter.buckets.search.limit", "2",
                        "ratelimiter.buckets.search.window", "PT1M"),
                Items.class, Tags.class, Stereotyped.class, Mixed.class);
    }

    /** Calls {@code call} {@code times} times, each in a request of one anonymous client address. */
    private int allowedCalls(String clientAddress, int times, Supplier<String> call) {
        RequestContextController request = cdi.select(RequestContextController.class);
        int allowed = 0;
        for (int i = 0; i < times; i++) {
            request.activate();
            try {
                cdi.select(RequestIdentity.class).resolve(null, clientAddress);
                call.get();
                allowed++;
            } catch (RateLimitExceededException e) {
                assertThat(allowed).as("refused only past the limit").isGreaterThanOrEqualTo(2);
            } finally {
                request.deactivate();
            }
        }
        return allowed;
    }

    private static String client() {
        return "198.51.100." + (1 + Math.floorMod(UUID.randomUUID().hashCode(), 250));
    }

    @Test
    @DisplayName("a class-level binding on a subclass limits the method it inherits from an unannotated base: 3 allowed, the 4th refused")
    void classLevelOnSubclass() {
        start();
        Items items = cdi.select(Items.class);
        assertThat(allowedCalls(client(), 4, items::list)).isEqualTo(3);
    }

    @Test
    @DisplayName("two beans inheriting one method count in their own buckets (imports 3, search 2)")
    void samemethodTwoBuckets() {
        start();
        String client = client();
        assertThat(allowedCalls(client, 3, cdi.select(Tags.class)::list)).isEqualTo(2);
        assertThat(allowedCalls(client, 4, cdi.select(Items.class)::list)).isEqualTo(3);
    }

    @Test
    @DisplayName("a stereotype carrying @RateLimited binds its beans' methods")
    void stereotype() {
        start();
        assertThat(allowedCalls(client(), 3, cdi.select(Stereotyped.class)::find)).isEqualTo(2);
    }

    @Test
    @DisplayName("a method-level binding replaces the class-level one; the class's other methods keep the class's")
    void methodReplacesClass() {
        start();
        String client = client();
        Mixed mixed = cdi.select(Mixed.class);
        assertThat(allowedCalls(client, 3, mixed::narrow)).as("search").isEqualTo(2);
        assertThat(allowedCalls(client, 4, mixed::wide)).as("imports").isEqualTo(3);
    }
}
