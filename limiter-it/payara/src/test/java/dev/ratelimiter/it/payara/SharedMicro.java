package dev.ratelimiter.it.payara;

import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.net.URI;
import java.util.Map;
import java.util.function.Supplier;

/**
 * One Payara Micro instance for every test class of the test JVM that registers this object
 * ({@code @RegisterExtension}): started, with its applications deployed, before the first such class's tests, and
 * killed when the JVM's run ends (failsafe runs two JVMs, {@code payara.it.forks}: each starts its own). A start costs 20 to 40 s, and the Arquillian adapter makes one per test class; the
 * classes sharing an instance need only buckets and keys no other test uses, which every scenario makes its own
 * (each {@code ExampleApi} client has an address of its own, each account and tenant a random name).
 *
 * <p>An instance runs its applications side by side: readiness and metrics are the server's, listing every
 * application's checks and meters, so only one application per instance may be one a scenario reads them from.
 */
final class SharedMicro implements BeforeAllCallback {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(SharedMicro.class);

    private final String name;
    private final Supplier<Map<String, WebArchive>> applications;
    private volatile MicroInstance instance;

    /**
     * @param name         tells the instance apart from the run's other shared ones
     * @param applications the file name of each application (its context root: {@code ROOT.war} at {@code /}) to
     *                     its archive, made when the instance starts
     */
    SharedMicro(String name, Supplier<Map<String, WebArchive>> applications) {
        this.name = name;
        this.applications = applications;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        // The root context's store closes what it holds when the run ends, after the last class using it.
        instance = context.getRoot().getStore(NAMESPACE)
                .getOrComputeIfAbsent(name, key -> new Running(MicroInstance.deployAll(applications.get())),
                        Running.class)
                .instance();
    }

    /** The root of the application deployed as {@code ROOT.war}, such as {@code http://127.0.0.1:8123/}. */
    URI root() {
        return instance.root();
    }

    /** The root of the application deployed as {@code name}{@code .war}, ending with {@code /}. */
    URI root(String name) {
        return instance.root().resolve(name + "/");
    }

    /** What the instance has printed so far (its server log). */
    String log() {
        return instance.log();
    }

    /** Kills the instance when the run's root context closes. */
    private record Running(MicroInstance instance) implements ExtensionContext.Store.CloseableResource {

        @Override
        public void close() throws InterruptedException {
            instance.close();
        }
    }
}
