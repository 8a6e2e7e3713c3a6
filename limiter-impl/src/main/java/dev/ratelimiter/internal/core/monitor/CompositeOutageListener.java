package dev.ratelimiter.internal.core.monitor;

import dev.ratelimiter.Bucket;

import java.util.List;

/** Tells several outage listeners, in order. */
public final class CompositeOutageListener implements OutageListener {

    private final List<OutageListener> listeners;

    /** @param listeners told in this order; a listener that throws stops the ones after it */
    public CompositeOutageListener(List<OutageListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    @Override
    public void fallback(Bucket bucket) {
        for (OutageListener listener : listeners) {
            listener.fallback(bucket);
        }
    }

    @Override
    public void failOpen(Bucket bucket) {
        for (OutageListener listener : listeners) {
            listener.failOpen(bucket);
        }
    }

    @Override
    public void failClosed(Bucket bucket) {
        for (OutageListener listener : listeners) {
            listener.failClosed(bucket);
        }
    }
}
