package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.RateLimitExceededException;
import dev.ratelimiter.RateLimits;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.cdi.interceptor.WaitingCalls;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * Bounded waits through the interceptor on the in-memory store (docs/guide.md#waiting-instead-of-refusing): a call the
 * bucket would refuse waits for the bucket's window to end when that is within {@code max-wait}, and runs then;
 * otherwise, or past {@code max-waiting} callers, it is refused at once. The container's manual clock moves time.
 */
class WaitingCallsCdiTest {

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

    private PartnerClient start(String window, String maxWait, Map<String, String> more) {
        Map<String, String> properties = new HashMap<>(Map.of(
                "ratelimiter.buckets.partner.limit", "2",
                "ratelimiter.buckets.partner.window", window,
                "ratelimiter.buckets.partner.max-wait", maxWait,
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

    /** Calls {@code quote} on another thread; its answer, or the refusal it threw. */
    private Future<Object> calling(PartnerClient client, String account) {
        return callers.submit(() -> {
            try {
                return client.quote(account);
            } catch (RateLimitExceededException e) {
                return e;
            }
        });
    }

    @Test
    @DisplayName("2 per second, max-wait 5 s: the 3rd call waits for the window to end and then runs, counted in the "
            + "new window (1 left)")
    void waitsForTheWindowsEnd() throws Exception {
        PartnerClient client = start("PT1S", "PT5S", Map.of());
        WaitingCalls waits = cdi.select(WaitingCalls.class);
        String account = account();
        client.quote(account);
        client.quote(account);
        Future<Object> third = calling(client, account);
        await().atMost(Duration.ofSeconds(5)).until(() -> waits.waiting("partner") == 1);
        assertThat(third).isNotDone();
        CdiContainer.CLOCK.advance(Duration.ofSeconds(1));
        assertThat(third.get(5, TimeUnit.SECONDS)).isEqualTo("quote for " + account);
        assertThat(waits.waiting("partner")).isZero();
        assertThat(cdi.select(RateLimits.class).usage("partner", account).remaining()).isEqualTo(1);
    }

    @Test
    @DisplayName("2 per hour, max-wait 1 s: the 3rd call is refused at once, its Retry-After the window's end: waiting "
            + "could not end in the call running")
    void refusedAtOnceWhenTheWaitIsLongerThanTheBound() throws Exception {
        PartnerClient client = start("PT1H", "PT1S", Map.of());
        String account = account();
        client.quote(account);
        client.quote(account);
        assertThat(calling(client, account).get(5, TimeUnit.SECONDS)).isInstanceOfSatisfying(
                RateLimitExceededException.class,
                refused -> assertThat(refused.verdict().retryAfterSeconds()).isEqualTo(3_600));
    }

    @Test
    @DisplayName("max-waiting 2: with 2 calls waiting for the window's end, a 3rd would-be waiter is refused at once, "
            + "and both waiters run once the window ends")
    void atMostMaxWaitingCallsWait() throws Exception {
        PartnerClient client = start("PT2S", "PT10S", Map.of("ratelimiter.buckets.partner.max-waiting", "2",
                "ratelimiter.buckets.partner.limit", "3"));
        WaitingCalls waits = cdi.select(WaitingCalls.class);
        String account = account();
        client.quote(account);
        client.quote(account);
        client.quote(account);
        List<Future<Object>> waiters = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            waiters.add(calling(client, account));
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> waits.waiting("partner") == 2);
        assertThat(calling(client, account).get(5, TimeUnit.SECONDS)).isInstanceOf(RateLimitExceededException.class);
        CdiContainer.CLOCK.advance(Duration.ofSeconds(2));
        for (Future<Object> waiter : waiters) {
            assertThat(waiter.get(5, TimeUnit.SECONDS)).isEqualTo("quote for " + account);
        }
        assertThat(waits.waiting("partner")).isZero();
    }

    @Test
    @DisplayName("a method whose waiting bucket is not its first is refused at once: its first bucket counted it")
    void onlyTheFirstBucketWaits() throws Exception {
        PartnerClient client = start("PT1S", "PT10S", Map.of());
        String account = account();
        client.quote(account);
        client.quote(account);
        Future<Throwable> counted = callers.submit(() -> catchThrowable(() -> client.quoteCounted(account)));
        assertThat(counted.get(5, TimeUnit.SECONDS)).isInstanceOf(RateLimitExceededException.class);
    }

    @Test
    @DisplayName("a CompletionStage method waits without a thread: its stage is pending until the window ends, then "
            + "the method runs")
    void completionStageWaitsWithoutAThread() throws Exception {
        PartnerClient client = start("PT1S", "PT10S", Map.of());
        WaitingCalls waits = cdi.select(WaitingCalls.class);
        String account = account();
        client.quote(account);
        client.quote(account);
        CompletableFuture<String> later = client.quoteLater(account).toCompletableFuture();
        assertThat(later).as("returned at once, pending").isNotDone();
        assertThat(waits.waiting("partner")).isEqualTo(1);
        CdiContainer.CLOCK.advance(Duration.ofSeconds(1));
        assertThat(later.get(5, TimeUnit.SECONDS)).isEqualTo("quote for " + account);
        assertThat(waits.waiting("partner")).isZero();
    }

    @Test
    @DisplayName("a Uni method waits without a thread at each subscription: pending until the window ends")
    void uniWaitsWithoutAThread() throws Exception {
        PartnerClient client = start("PT1S", "PT10S", Map.of());
        String account = account();
        client.quote(account);
        client.quote(account);
        CompletableFuture<String> later = client.quoteUni(account).subscribeAsCompletionStage();
        await().atMost(Duration.ofSeconds(5))
                .until(() -> cdi.select(WaitingCalls.class).waiting("partner") == 1);
        assertThat(later).isNotDone();
        CdiContainer.CLOCK.advance(Duration.ofSeconds(1));
        assertThat(later.get(5, TimeUnit.SECONDS)).isEqualTo("quote for " + account);
    }

    @Test
    @DisplayName("a token bucket of 2 per 2 s reserves: the 3rd and 4th calls wait 1 s and 2 s in the order they came, "
            + "the 5th (3 s, beyond max-wait 2.5 s) is refused at once")
    void tokenBucketReservesInOrder() throws Exception {
        PartnerClient client = start("PT2S", "PT2.5S", Map.of("ratelimiter.buckets.partner.algorithm",
                "token-bucket"));
        WaitingCalls waits = cdi.select(WaitingCalls.class);
        String account = account();
        client.quote(account);
        client.quote(account);
        Future<Object> third = calling(client, account);
        await().atMost(Duration.ofSeconds(5)).until(() -> waits.waiting("partner") == 1);
        Future<Object> fourth = calling(client, account);
        await().atMost(Duration.ofSeconds(5)).until(() -> waits.waiting("partner") == 2);
        assertThat(calling(client, account).get(5, TimeUnit.SECONDS)).isInstanceOf(RateLimitExceededException.class);
        CdiContainer.CLOCK.advance(Duration.ofSeconds(1));
        assertThat(third.get(5, TimeUnit.SECONDS)).isEqualTo("quote for " + account);
        assertThat(fourth).as("its tokens come a second later").isNotDone();
        CdiContainer.CLOCK.advance(Duration.ofSeconds(1));
        assertThat(fourth.get(5, TimeUnit.SECONDS)).isEqualTo("quote for " + account);
    }

    @Test
    @DisplayName("RateLimits.consume does not wait: a reservation is given back and refused, its wait as Retry-After, "
            + "and the next waiting call gets those tokens")
    void facadeGivesAReservationBack() throws Exception {
        PartnerClient client = start("PT2S", "PT5S", Map.of("ratelimiter.buckets.partner.algorithm",
                "token-bucket"));
        WaitingCalls waits = cdi.select(WaitingCalls.class);
        String account = account();
        client.quote(account);
        client.quote(account);
        Verdict refused = cdi.select(RateLimits.class).consume("partner", account);
        assertThat(refused.outcome()).isEqualTo(Verdict.Outcome.DENIED);
        assertThat(refused.retryAfterSeconds()).isEqualTo(1);
        Future<Object> waiter = calling(client, account);
        await().atMost(Duration.ofSeconds(5)).until(() -> waits.waiting("partner") == 1);
        CdiContainer.CLOCK.advance(Duration.ofSeconds(1));
        assertThat(waiter.get(5, TimeUnit.SECONDS)).as("reserved 1 s ahead, not 2 s").isEqualTo("quote for " + account);
    }

    @Test
    @DisplayName("3 a second (a full refill of 999 999 µs), max-wait 2 s: RateLimits.consume, which never waits, is "
            + "allowed 3 times in a row, the 3rd taking the last token, and refused the 4th; while a call waits for its "
            + "reservation, a check and usage read a refusal, as a call of cost 1 that cannot wait would meet")
    void callsThatCannotWaitGetEveryTokenAndChecksSeeTheQueue() throws Exception {
        PartnerClient client = start("PT1S", "PT2S", Map.of("ratelimiter.buckets.partner.algorithm",
                "token-bucket", "ratelimiter.buckets.partner.limit", "3"));
        RateLimits limits = cdi.select(RateLimits.class);
        String account = account();
        for (int i = 1; i <= 3; i++) {
            assertThat(limits.consume("partner", account).outcome()).as("call %d", i)
                    .isEqualTo(Verdict.Outcome.ALLOWED);
        }
        assertThat(limits.consume("partner", account).outcome()).isEqualTo(Verdict.Outcome.DENIED);
        Future<Object> waiter = calling(client, account);
        await().atMost(Duration.ofSeconds(5)).until(() -> cdi.select(WaitingCalls.class).waiting("partner") == 1);
        assertThat(limits.consume("partner", account, 0).outcome()).as("a check").isEqualTo(Verdict.Outcome.DENIED);
        assertThat(limits.usage("partner", account).outcome()).as("usage").isEqualTo(Verdict.Outcome.DENIED);
        CdiContainer.CLOCK.advance(Duration.ofSeconds(1));
        assertThat(waiter.get(5, TimeUnit.SECONDS)).isEqualTo("quote for " + account);
    }

    @Test
    @DisplayName("an interrupted waiter ends its wait refused, its interrupt kept")
    void interruptEndsTheWait() throws Exception {
        PartnerClient client = start("PT3S", "PT10S", Map.of());
        WaitingCalls waits = cdi.select(WaitingCalls.class);
        String account = account();
        client.quote(account);
        client.quote(account);
        CompletableFuture<Boolean> interruptKept = new CompletableFuture<>();
        Thread waiter = new Thread(() -> {
            try {
                client.quote(account);
                interruptKept.complete(false);
            } catch (RateLimitExceededException e) {
                interruptKept.complete(Thread.currentThread().isInterrupted());
            }
        });
        waiter.start();
        await().atMost(Duration.ofSeconds(5)).until(() -> waits.waiting("partner") == 1);
        waiter.interrupt();
        assertThat(interruptKept.get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(waits.waiting("partner")).isZero();
    }

    @Test
    @DisplayName("a key on the allow list and a bucket in shadow mode never wait: past the limit they run at once")
    void allowListedAndShadowCallsRunAtOnce() throws Exception {
        String listed = account();
        PartnerClient client = start("PT2S", "PT5S", Map.of("ratelimiter.buckets.partner.algorithm", "token-bucket",
                "ratelimiter.buckets.partner.allow", listed));
        for (int i = 0; i < 10; i++) {
            assertThat(calling(client, listed).get(5, TimeUnit.SECONDS)).as("call %d", i)
                    .isEqualTo("quote for " + listed);
        }
        cdi.close();
        PartnerClient shadow = start("PT2S", "PT5S", Map.of("ratelimiter.buckets.partner.algorithm", "token-bucket",
                "ratelimiter.buckets.partner.mode", "shadow"));
        String account = account();
        for (int i = 0; i < 10; i++) {
            assertThat(calling(shadow, account).get(5, TimeUnit.SECONDS)).as("call %d", i)
                    .isEqualTo("quote for " + account);
        }
    }
}
