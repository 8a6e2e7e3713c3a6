package dev.ratelimiter.it;

import dev.ratelimiter.it.app.ItemsResource;
import dev.ratelimiter.it.listed.ListedApplication;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.importer.ZipImporter;
import org.jboss.shrinkwrap.api.spec.JavaArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

/**
 * The example WAR as built by its module (system property {@code example.war}), prepared for a test deployment
 * on an Arquillian-managed server, and what the startup-failure tests expect the server log to say.
 */
public final class ExampleDeployments {

    /**
     * The configuration of the resources the scenarios add to the example ({@code dev.ratelimiter.it.app}): bucket
     * {@code trial} of {@code TrialResource}, 2 per hour, in shadow mode; bucket {@code selfcall} of
     * {@code SelfCallResource}, 3 a minute; bucket {@code tiered} of {@code TieredResource}, 2 per hour, with the
     * plans free (2) and pro (6) chosen by the plan resolver {@code TierResolver} that it names
     * (docs/plans.md); bucket {@code live} of {@code LiveResource}, 5 a minute, which only
     * {@link LiveLimitsScenarios} changes. The Quarkus module's {@code application.properties} repeats it; the Quarkus application that
     * lists its classes adds it.
     */
    public static final String SCENARIO_CONFIG = "ratelimiter.buckets.trial.limit=2\n"
            + "ratelimiter.buckets.trial.window=PT1H\n"
            + "ratelimiter.buckets.trial.mode=shadow\n"
            + "ratelimiter.buckets.selfcall.limit=3\n"
            + "ratelimiter.buckets.selfcall.window=PT1M\n"
            + "ratelimiter.buckets.tiered.limit=2\n"
            + "ratelimiter.buckets.tiered.window=PT1H\n"
            + "ratelimiter.buckets.tiered.plan-resolver=tier-by-tenant\n"
            + "ratelimiter.buckets.tiered.plans=free,pro\n"
            + "ratelimiter.buckets.tiered.plans.free.limit=2\n"
            + "ratelimiter.buckets.tiered.plans.pro.limit=6\n"
            + "ratelimiter.buckets.live.limit=5\n"
            + "ratelimiter.buckets.live.window=PT1M\n";

    /** Properties a startup-failure test gets wrong: a window under a second, an unknown backend. */
    public static final String BAD_PROPERTIES =
            "ratelimiter.buckets.login.window=PT0.5S\nratelimiter.backend=memcached\n";

    /** What the server log must say about {@link #BAD_PROPERTIES}. */
    public static final List<String> BAD_PROPERTY_MESSAGES = List.of(
            "Rate limiter configuration is invalid",
            "ratelimiter.buckets.login.window: 'PT0.5S' must be a whole number of seconds",
            "ratelimiter.backend: 'memcached' is not a store found on the class path; use one of memory, postgres, "
                    + "valkey");

    /**
     * Configuration profiles (docs/guide.md#configuration-profiles): the profile {@code it} made active by
     * {@code mp.config.profile}, the bucket {@code profiled} defined only under it, the bucket {@code other-only}
     * only under the inactive profile {@code other}. {@link ExampleApiScenarios#assertBucketsUnderProfiles} checks
     * that the first exists and the second does not.
     */
    public static final String PROFILES = """
            mp.config.profile=it
            %it.ratelimiter.buckets.profiled.limit=7
            %it.ratelimiter.buckets.profiled.window=PT1M
            %other.ratelimiter.buckets.other-only.limit=7
            %other.ratelimiter.buckets.other-only.window=PT1M
            """;

    /** The environment variable {@link #UNRESOLVED_SECRET} refers to; a scenario checks it is unset. */
    public static final String SECRET_VARIABLE = "RATE_LIMIT_KEY_SECRET";

    /**
     * A secret given as an expression whose variable is not set, as a new user would write it
     * (docs/guide.md#adding-it-to-an-application).
     */
    public static final String UNRESOLVED_SECRET = "ratelimiter.key-secret=${" + SECRET_VARIABLE + "}\n";

    /**
     * What the server log must say about {@link #UNRESOLVED_SECRET}, whatever the server's Config does with the
     * expression (SmallRye Config throws SRCFG00011; others hand back its text or nothing).
     */
    public static final List<String> UNRESOLVED_SECRET_MESSAGES = List.of(
            "Rate limiter configuration is invalid",
            "ratelimiter.key-secret: cannot be read: ");

    /** What a server must not log when the start fails: the limiter only says it is ready once checked. */
    public static final String READY = "Rate limiter ready";

    /** What the server log must say about a deployment with {@link MisconfiguredService}. */
    public static final List<String> MISCONFIGURED_MESSAGES = List.of(
            "Rate limiter configuration is invalid",
            "@RateLimited(bucket = \"no-such-bucket\") on " + MisconfiguredService.class.getName()
                    + "#search(String): bucket 'no-such-bucket' is not configured; set "
                    + "ratelimiter.buckets.no-such-bucket.limit and ratelimiter.buckets.no-such-bucket.window",
            MisconfiguredService.class.getName() + "#lookup(long): @RateLimitKey is on parameter 0 of type long",
            "@RateLimited(bucket = \"login\") on " + MisconfiguredService.class.getName() + "#byTenant(): "
                    + "resolverName = \"no-such-resolver\" names no RateLimitKeyResolver bean",
            MisconfiguredService.class.getName() + "#spray(String): @RateLimited(bucket = \"login\"): key = "
                    + "PARAMETER (or fallback = PARAMETER) but no parameter is marked @RateLimitKey",
            "@BucketName(\"no-such-report\") on " + MisconfiguredService.class.getName() + ".reports: bucket "
                    + "'no-such-report' is not configured; set ratelimiter.buckets.no-such-report.limit and "
                    + "ratelimiter.buckets.no-such-report.window",
            "@RateLimited on " + MisconfiguredService.class.getName() + "#audit(String), a static method: Payara and "
                    + "Open Liberty (Weld) never intercept a static method, so it would be counted on Quarkus only");

    private ExampleDeployments() {
    }

    /** {@link #example(String, String)} as {@code ROOT.war}. */
    public static WebArchive example(String extraConfig) {
        return example("ROOT.war", extraConfig);
    }

    /**
     * The example at the root context, with one more configuration source on top of the example's own:
     * {@code extraConfig} (properties text) at ordinal 200, and the resources the scenarios add
     * ({@code dev.ratelimiter.it.app}: an inherited binding, {@code CompletionStage} methods, the library's feature
     * registered beside scanning, a bucket in shadow mode) with their configuration ({@link #SCENARIO_CONFIG}). Payara Micro deploys {@code ROOT.war} at {@code /}; Open Liberty takes the
     * context root from {@code WEB-INF/ibm-web-ext.xml}, added here (other servers ignore it). The archive name is
     * also the application's name.
     */
    public static WebArchive example(String archiveName, String extraConfig) {
        File war = new File(System.getProperty("example.war"));
        WebArchive archive = ShrinkWrap.create(ZipImporter.class, archiveName).importFrom(war).as(WebArchive.class)
                .addAsWebInfResource(new StringAsset(IBM_WEB_EXT), "ibm-web-ext.xml")
                .addPackage(ItemsResource.class.getPackage());
        JavaArchive config = ShrinkWrap.create(JavaArchive.class, "it-config.jar")
                .addAsManifestResource(new StringAsset("config_ordinal=200\n" + SCENARIO_CONFIG + extraConfig),
                        "microprofile-config.properties");
        return archive.addAsLibrary(config);
    }

    /**
     * The example WAR as its module builds it, as {@code ROOT.war} (Payara Micro deploys it at {@code /}, as the
     * first command of README.md serves it): nothing added, for the tests that hold the docs' tours to their answers.
     */
    public static WebArchive asBuilt() {
        return ShrinkWrap.create(ZipImporter.class, "ROOT.war").importFrom(new File(System.getProperty("example.war")))
                .as(WebArchive.class);
    }

    /**
     * {@link #example(String)} with its {@code Application} replaced by {@link ListedApplication}, whose
     * {@code getClasses()} turns provider scanning off and lists the library's feature.
     */
    public static WebArchive listed(String extraConfig) {
        WebArchive archive = example(extraConfig);
        archive.delete("/WEB-INF/classes/dev/ratelimiter/example/ExampleApplication.class");
        return archive.addClass(ListedApplication.class);
    }

    private static final String IBM_WEB_EXT = """
            <?xml version="1.0" encoding="UTF-8"?>
            <web-ext xmlns="http://websphere.ibm.com/xml/ns/javaee"
                     xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
                     xsi:schemaLocation="http://websphere.ibm.com/xml/ns/javaee http://websphere.ibm.com/xml/ns/javaee/ibm-web-ext_1_1.xsd"
                     version="1.1">
              <context-root uri="/"/>
            </web-ext>
            """;

    /**
     * The deployment's root on loopback: the adapter reports the machine's own address, but the tests send
     * traffic to 127.0.0.1 only, which the test configuration trusts as a proxy.
     */
    public static URI loopback(URL deployment) {
        return URI.create("http://127.0.0.1:" + deployment.getPort() + "/");
    }

    /** The status of a GET of {@code path} below the deployment's root. */
    public static int status(URL deployment, String path) throws IOException, InterruptedException {
        return HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(loopback(deployment).resolve(path)).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
