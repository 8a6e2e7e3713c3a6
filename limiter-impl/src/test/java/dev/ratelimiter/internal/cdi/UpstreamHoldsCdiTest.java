package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimitExceededException;
import dev.ratelimiter.internal.cdi.interceptor.WaitingCalls;
import jakarta.ws.rs.WebApplicationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Holds from the upstream through the interceptor on the in-memory store (docs/guide.md#holds-from-the-upstream): a
 * call the partner answers 429 or 503 with {@code Retry-After} holds the bucket's key until then, for every caller;
 * a call refused by the hold waits it out if the bucket has {@code max-wait}. The container's manual clock moves time.
 */
class UpstreamHoldsCdiTest {

    private CdiContainer cdi;
    private ExecutorService callers;

    @AfterEach
    void stop() {
        if (callers != null) {
            callers.shutdownNow();
        }
        if (cdi != null) {
            cdi.close();
        }
    }

    private PartnerClient start(Map<String, String> more) {
        Map<String, String> properties = new HashMap<>(Map.of(
                "ratelimiter.buckets.partner.limit", "100",
                "ratelimiter.buckets.partner.window", "PT1H",
                "ratelimiter.buckets.partner.upstream-hold-max", "PT1M",
                "ratelimiter.buckets.partner-daily.limit", "1000",
                "ratelimiter.buckets.partner-daily.window", "PT24H"));
        properties.putAll(more);
        cdi = CdiContainer.start(properties, PartnerClient.class);
        callers = Executors.newCachedThreadPool();
        return cdi.select(PartnerClient.class);
    }

    private static String account() {
        return "account-" + UUID.randomUUID();
    }

    @Test
    @DisplayName("a 429 with Retry-After: 30 holds the account: its next calls are refused with Retry-After 30 until "
            + "then, another account's are not, and after 30 s the account's calls pass")
    void retryAfterSecondsHoldsTheKey() {
        PartnerClient client = start(Map.of());
        String account = account();
        assertThatThrownBy(() -> client.quoteAnswered(account, 429, "30"))
                .isInstanceOf(WebApplicationException.class);
        assertThatThrownBy(() -> client.quote(account)).isInstanceOfSatisfying(RateLimitExceededException.class,
                refused -> assertThat(refused.verdict().retryAfterSeconds()).isEqualTo(30));
        assertThat(client.quote(account())).as("another account").startsWith("quote for");
        CdiContainer.CLOCK.advance(Duration.ofSeconds(30));
        assertThat(client.quote(account)).isEqualTo("quote for " + account);
    }

    @Test
    @DisplayName("a 503 returned as a Response with an HTTP-date holds until that date; a Retry-After beyond "
            + "upstream-hold-max holds for upstream-hold-max")
    void httpDateAndTheBound() {
        PartnerClient client = start(Map.of());
        String account = account();
        String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(
                CdiContainer.CLOCK.instant().plusSeconds(20).atOffset(ZoneOffset.UTC));
        assertThat(client.quoteResponse(account, 503, date).getStatus()).isEqualTo(503);
        assertThatThrownBy(() -> client.quote(account)).isInstanceOfSatisfying(RateLimitExceededException.class,
                refused -> assertThat(refused.verdict().retryAfterSeconds()).isEqualTo(20));
        String other = account();
        client.quoteResponse(other, 429, "7200");
        assertThatThrownBy(() -> client.quote(other)).isInstanceOfSatisfying(RateLimitExceededException.class,
                refused -> assertThat(refused.verdict().retryAfterSeconds()).isEqualTo(60));
    }

    @Test
    @DisplayName("a malformed or missing Retry-After, another status and Retry-After: 0 hold nothing")
    void malformedAnswersHoldNothing() {
        PartnerClient client = start(Map.of());
        String account = account();
        client.quoteResponse(account, 429, "soon");
        client.quoteResponse(account, 429, "");
        client.quoteResponse(account, 500, "30");
        client.quoteResponse(account, 429, "0");
        client.quoteResponse(account, 429, "99999999999999999999999");
        assertThat(client.quote(account)).isEqualTo("quote for " + account);
    }

    @Test
    @DisplayName("with max-wait 40 s, a call refused by a 30 s hold waits it out and runs")
    void aWaitingCallWaitsOutTheHold() throws Exception {
        PartnerClient client = start(Map.of("ratelimiter.buckets.partner.max-wait", "PT40S"));
        WaitingCalls waits = cdi.select(WaitingCalls.class);
        String account = account();
        assertThatThrownBy(() -> client.quoteAnswered(account, 429, "30"))
                .isInstanceOf(WebApplicationException.class);
        Future<String> held = callers.submit(() -> client.quote(account));
        await().atMost(Duration.ofSeconds(5)).until(() -> waits.waiting("partner") == 1);
        assertThat(held).isNotDone();
        CdiContainer.CLOCK.advance(Duration.ofSeconds(30));
        assertThat(held.get(5, TimeUnit.SECONDS)).isEqualTo("quote for " + account);
    }

    @Test
    @DisplayName("a bucket without upstream-hold-max holds nothing on a 429")
    void withoutUpstreamHoldMaxNothingIsHeld() {
        cdi = CdiContainer.start(Map.of("ratelimiter.buckets.partner.limit", "100",
                "ratelimiter.buckets.partner.window", "PT1H", "ratelimiter.buckets.partner-daily.limit", "1000",
                "ratelimiter.buckets.partner-daily.window", "PT24H"), PartnerClient.class);
        PartnerClient plain = cdi.select(PartnerClient.class);
        String account = account();
        assertThatThrownBy(() -> plain.quoteAnswered(account, 429, "30")).isInstanceOf(WebApplicationException.class);
        assertThat(plain.quote(account)).isEqualTo("quote for " + account);
    }
}
