package dev.ratelimiter.spi;

import dev.ratelimiter.Bucket;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What a store decorator built on {@link ForwardingRateLimitStore} keeps of the store it wraps. */
class ForwardingRateLimitStoreTest {

    private static final Bucket BUCKET = Bucket.of("forwarded", 10, Duration.ofMinutes(1));

    /** The last call the wrapped store received, and what it answers. */
    private static final class Recorded {
        final AtomicReference<Method> method = new AtomicReference<>();
        final AtomicReference<Object[]> arguments = new AtomicReference<>();
        final long[] answer = {1, 2, 3};
        final long[][] answers = {{1, 2, 3}};
        final Optional<StoreParts> parts = Optional.of(new StoreParts() {
            @Override
            public String partOf(Bucket bucket, String key) {
                return "part";
            }

            @Override
            public void probe(String part) {
            }
        });
        final Optional<StoreBatching> batching = Optional.of(new StoreBatching(8, 1, Duration.ofMillis(5)));

        RateLimitStore store(StoreException failure) {
            return (RateLimitStore) Proxy.newProxyInstance(getClass().getClassLoader(),
                    new Class<?>[] {RateLimitStore.class}, (proxy, method, args) -> {
                        method(method, args);
                        if (failure != null && method.getExceptionTypes().length > 0) {
                            throw failure;
                        }
                        return switch (method.getName()) {
                            case "consume" -> answer;
                            case "consumeEach" -> answers;
                            case "parts" -> parts;
                            case "batching" -> batching;
                            case "blocking" -> true; // the interface has no default: not the zero value
                            default -> null;
                        };
                    });
        }

        private void method(Method called, Object[] args) {
            method.set(called);
            arguments.set(args == null ? new Object[0] : args);
        }
    }

    @Test
    @DisplayName("every method of RateLimitStore, those with a default too, reaches the wrapped store with the same "
            + "arguments, and its answer comes back as it was")
    void everyMethodIsForwarded() throws Exception {
        Recorded recorded = new Recorded();
        RateLimitStore forwarding = new ForwardingRateLimitStore(recorded.store(null)) { };
        List<Method> methods = Arrays.stream(RateLimitStore.class.getMethods())
                .filter(method -> !Modifier.isStatic(method.getModifiers())).toList();
        assertThat(methods).extracting(Method::getName).contains("consume", "consumeEach", "batching", "refund",
                "reset", "probe", "blocking", "parts", "close");

        for (Method method : methods) {
            Object[] arguments = Arrays.stream(method.getParameterTypes()).map(this::argument).toArray();
            recorded.method.set(null);

            Object answer = method.invoke(forwarding, arguments);

            assertThat(recorded.method.get()).as(method.getName() + " reached the wrapped store").isEqualTo(method);
            for (int i = 0; i < arguments.length; i++) {
                assertThat(recorded.arguments.get()[i]).as(method.getName() + "'s argument " + i)
                        .isSameAs(arguments[i]);
            }
            Object expected = switch (method.getName()) {
                case "consume" -> recorded.answer;
                case "consumeEach" -> recorded.answers;
                case "parts" -> recorded.parts;
                case "batching" -> recorded.batching;
                case "blocking" -> true;
                default -> null;
            };
            assertThat(answer).as(method.getName() + "'s answer").isEqualTo(expected);
        }
    }

    @Test
    @DisplayName("the wrapped store's failure passes through as it was thrown")
    void failuresPassThrough() {
        StoreException failure = new StoreException(FailureKind.TRANSIENT, new java.io.IOException("down"));
        RateLimitStore forwarding = new ForwardingRateLimitStore(new Recorded().store(failure)) { };

        assertThatThrownBy(() -> forwarding.consume(List.of(new StoreItem(BUCKET, "k", 1)))).isSameAs(failure);
        assertThatThrownBy(() -> forwarding.probe()).isSameAs(failure);
    }

    private Object argument(Class<?> type) {
        if (type == List.class) {
            return new ArrayList<>(); // a fresh instance: the same one must arrive
        }
        if (type == Bucket.class) {
            return BUCKET;
        }
        if (type == String.class) {
            return new String("key");
        }
        if (type == StorePermit.class) {
            return new StorePermit(dev.ratelimiter.Bucket.concurrency("exports", 2, java.time.Duration.ofSeconds(30),
                    dev.ratelimiter.OutagePolicy.FALLBACK), "key", 7);
        }
        throw new AssertionError("an argument of " + type + ": give one here");
    }
}
