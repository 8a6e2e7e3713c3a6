package dev.ratelimiter.contract;

import dev.ratelimiter.spi.RateLimitStore;
import dev.ratelimiter.spi.RateLimitStoreProvider;
import dev.ratelimiter.spi.StoreContext;

import java.util.Optional;
import java.util.Set;

/**
 * Builds the {@link MapStore}, selected with {@code ratelimiter.backend=test-map} and registered in the test
 * sources' {@code META-INF/services/dev.ratelimiter.spi.RateLimitStoreProvider}. Reads one property,
 * {@code ratelimiter.test-map.down} (a boolean, false by default; true starts the store out of reach), and hands the
 * store it built to an application bean {@link Created}, if there is one, so a test in a container can reach it.
 */
public final class MapStoreProvider implements RateLimitStoreProvider {

    /** The store's name, the value of {@code ratelimiter.backend}. */
    public static final String NAME = "test-map";

    /** An application bean told of the store built, once at startup. */
    public interface Created {
        /** @param store the store the library decides through */
        void created(MapStore store);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Set<String> propertyNames() {
        return Set.of("down");
    }

    /** Fixed windows only, so it gives a fixed window's counts back. */
    @Override
    public boolean refunds() {
        return true;
    }

    @Override
    public boolean debits() {
        return true;
    }

    /** A calendar window's length per call: {@code CalendarPeriods.windowMillis}. */
    @Override
    public boolean calendarWindows() {
        return true;
    }

    @Override
    public RateLimitStore create(StoreContext context) {
        boolean down = context.config().bool("down", false);
        context.config().check();
        MapStore store = new MapStore(context.clock());
        store.down(down);
        context.bean(Created.class, Optional.empty()).ifPresent(created -> created.created(store));
        return store;
    }
}
