package dev.ratelimiter.internal.core.monitor;

/** Whether the backend answers ({@code ok}) or the outage policies are deciding ({@code degraded}). */
public enum BackendState {
    OK,
    DEGRADED;

    /** The spelling used in readiness data and logs: {@code ok}, {@code degraded}. */
    public String label() {
        return this == OK ? "ok" : "degraded";
    }
}
