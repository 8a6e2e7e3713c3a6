package dev.ratelimiter.internal.postgres;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.lang.ref.WeakReference;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * pgjdbc's {@code DriverManager} entry does not outlive the library's pool when both came with the application
 * (docs/stores.md#redeploys): a class loader of its own stands for the application's, holding this module and
 * pgjdbc as a WAR's {@code WEB-INF/lib} does.
 */
class DriverRegistrationTest {

    @Test
    @DisplayName("pgjdbc and this module in the application's loader: released, the loader can be collected; "
            + "acquired again, the driver is registered again")
    void applicationLoaderIsReleased() throws Exception {
        WeakReference<ClassLoader> application = deployAndUndeploy();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            System.gc();
            return application.get() == null;
        });
    }

    /** What a deployment does to the registration, and whether anything else would keep its loader. */
    private static WeakReference<ClassLoader> deployAndUndeploy() throws Exception {
        URLClassLoader loader = new URLClassLoader(new URL[] {
                DriverRegistration.class.getProtectionDomain().getCodeSource().getLocation(),
                org.postgresql.Driver.class.getProtectionDomain().getCodeSource().getLocation()},
                ClassLoader.getPlatformClassLoader());
        Class<?> driver = Class.forName("org.postgresql.Driver", true, loader);
        Method isRegistered = driver.getMethod("isRegistered");
        assertThat((boolean) isRegistered.invoke(null)).as("registered once loaded").isTrue();

        Class<?> registration = Class.forName(DriverRegistration.class.getName(), true, loader);
        Method release = registration.getDeclaredMethod("release");
        Method acquire = registration.getDeclaredMethod("acquire");
        release.setAccessible(true);
        acquire.setAccessible(true);
        release.invoke(null);
        assertThat((boolean) isRegistered.invoke(null)).as("registered after release").isFalse();
        acquire.invoke(null);
        assertThat((boolean) isRegistered.invoke(null)).as("registered after acquire").isTrue();
        release.invoke(null);
        loader.close();
        return new WeakReference<>(loader);
    }

    @Test
    @DisplayName("pgjdbc on the class path: released, it stays registered (its loader lives as long as the JVM)")
    void classPathDriverStays() throws SQLException {
        DriverRegistration.acquire();
        DriverRegistration.release();
        assertThat(DriverManager.getDriver("jdbc:postgresql://127.0.0.1/test"))
                .isInstanceOf(org.postgresql.Driver.class);
    }
}
