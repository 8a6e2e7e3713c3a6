package dev.ratelimiter.internal.cdi;

import dev.ratelimiter.contract.MapStore;
import dev.ratelimiter.contract.MapStoreProvider;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** The test store's provider hands each store it builds to this bean, found through the store's build context. */
@ApplicationScoped
public class CreatedStores implements MapStoreProvider.Created {

    private final List<MapStore> stores = new CopyOnWriteArrayList<>();

    @Override
    public void created(MapStore store) {
        stores.add(store);
    }

    /** The stores built so far. */
    public List<MapStore> stores() {
        return List.copyOf(stores);
    }
}
