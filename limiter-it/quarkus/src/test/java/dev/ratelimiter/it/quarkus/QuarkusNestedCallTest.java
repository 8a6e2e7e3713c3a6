package dev.ratelimiter.it.quarkus;

import dev.ratelimiter.RateLimitKey;
import dev.ratelimiter.RateLimited;
import dev.ratelimiter.RateLimits;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * ArC intercepts a bean's call of its own method, where Weld does not: a class-level {@code @RateLimited} bean whose
 * {@code a()} calls {@code this.b()} must still count one attempt per call of {@code a()}
 * (docs/guide.md#several-limits-on-one-method), as on Payara and Open Liberty. The bucket {@code selfcall} (3 a
 * minute) is the scenarios' ({@code SelfCallResource}, in this module's application.properties); the keys here are
 * application keys, which never meet the resource's keys by client address.
 */
@QuarkusTest
class QuarkusNestedCallTest {

    @Inject
    SelfCalling service;

    @Inject
    RateLimits limits;

    @Test
    @DisplayName("a() calling this.b() of the same bucket and key counts once; b() called twice from outside counts two")
    void selfCallCountsOnce() {
        service.a("carol");
        assertThat(limits.consume("selfcall", "carol", 0).remaining()).as("after one call of a()").isEqualTo(2);
        service.a("carol");
        service.a("carol");
        assertThat(limits.consume("selfcall", "carol", 0).remaining()).as("after three").isZero();

        service.b("dave");
        service.b("dave");
        assertThat(limits.consume("selfcall", "dave", 0).remaining()).as("two calls of b() from outside").isEqualTo(1);
    }

    /** A bean limited at class level, one of whose methods calls another. */
    @ApplicationScoped
    @RateLimited(bucket = "selfcall")
    public static class SelfCalling {

        public String a(@RateLimitKey String user) {
            return b(user);
        }

        public String b(@RateLimitKey String user) {
            return user;
        }
    }
}
