package dev.ratelimiter.it.wildfly;

/**
 * The server's management interface (port {@code wildfly.management.port}, set by the pom), where WildFly serves
 * health and metrics rather than on the application's port.
 */
final class WildFlyManagement {

    private WildFlyManagement() {
    }

    /** MicroProfile Health's readiness, with the library's {@code rate-limiter} check. */
    static String readiness() {
        return root() + "health/ready";
    }

    /** Micrometer's Prometheus registry (configure.cli: {@code /subsystem=micrometer/registry=prometheus}). */
    static String prometheus() {
        return root() + "prometheus";
    }

    private static String root() {
        return "http://127.0.0.1:" + Integer.parseInt(System.getProperty("wildfly.management.port")) + "/";
    }
}
