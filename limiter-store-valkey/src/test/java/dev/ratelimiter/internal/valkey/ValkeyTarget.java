package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.testing.TestServers;

/** The Valkey or Redis server the shared-store tests use: {@link TestServers#valkeyUrl()}. */
final class ValkeyTarget {

    private ValkeyTarget() {
    }

    static String url() {
        return TestServers.valkeyUrl();
    }
}
