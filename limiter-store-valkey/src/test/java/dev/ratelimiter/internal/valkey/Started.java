package dev.ratelimiter.internal.valkey;

import java.util.ArrayList;
import java.util.List;

/** What a test started (servers, proxies, clients, chains), closed in reverse order by {@link #close()}. */
final class Started implements AutoCloseable {

    private final List<AutoCloseable> resources = new ArrayList<>();

    /** Keeps {@code resource} to close; returns it. */
    <T extends AutoCloseable> T add(T resource) {
        resources.add(0, resource);
        return resource;
    }

    @Override
    public void close() throws Exception {
        for (AutoCloseable resource : resources) {
            resource.close();
        }
        resources.clear();
    }
}
