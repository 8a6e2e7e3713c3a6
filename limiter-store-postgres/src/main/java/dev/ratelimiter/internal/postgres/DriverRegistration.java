package dev.ratelimiter.internal.postgres;

import org.postgresql.Driver;

import java.sql.SQLException;

/**
 * pgjdbc's entry in {@link java.sql.DriverManager} while the library's own pool is open. Loading
 * {@code org.postgresql.Driver} registers it in that JVM-wide registry; when pgjdbc came in the application's archive
 * beside this module, the entry holds the application's class loader, and with it every class of the application,
 * after the application is undeployed. Open Liberty leaves it there; Payara and Tomcat clear it themselves
 * (docs/stores.md#redeploys). The pool connects through the driver it names, so it needs no entry of its own.
 */
final class DriverRegistration {

    private static final System.Logger LOG = System.getLogger(DriverRegistration.class.getName());

    private DriverRegistration() {
    }

    /**
     * Registers pgjdbc again when a pool closed earlier in this class loader deregistered it, so that
     * {@code DriverManager} finds it as before while a pool is open (and HikariCP does not warn that it had to
     * instantiate the driver itself).
     */
    static void acquire() {
        try {
            if (!Driver.isRegistered()) {
                Driver.register();
            }
        } catch (SQLException | RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "pgjdbc is not registered with DriverManager", e);
        }
    }

    /**
     * Deregisters pgjdbc when it and this module share a class loader other than the class path's: the
     * application's own, which goes when the application is undeployed. A driver of the class path (whose loader
     * lives as long as the JVM) holds nothing that could be dropped, and one of a loader this module is not in
     * belongs to whoever put it there (a server's library), so both stay registered.
     */
    static void release() {
        ClassLoader loader = Driver.class.getClassLoader();
        if (loader != DriverRegistration.class.getClassLoader() || livesAsLongAsTheJvm(loader)) {
            return;
        }
        try {
            if (Driver.isRegistered()) {
                Driver.deregister();
            }
        } catch (SQLException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "pgjdbc could not be deregistered from DriverManager: an undeployed "
                    + "application's classes may stay in memory until the server restarts", e);
        }
    }

    private static boolean livesAsLongAsTheJvm(ClassLoader loader) {
        for (ClassLoader jvm = ClassLoader.getSystemClassLoader(); jvm != null; jvm = jvm.getParent()) {
            if (jvm == loader) {
                return true;
            }
        }
        return loader == null;
    }
}
