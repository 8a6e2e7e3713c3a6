package dev.ratelimiter.it.payara;

import dev.ratelimiter.it.ExampleDeployments;
import dev.ratelimiter.it.GlobalKeyResolverScenarios;
import dev.ratelimiter.it.LiveLimitsScenarios;
import dev.ratelimiter.it.MisconfiguredService;
import dev.ratelimiter.it.OlderClientHeadersScenarios;

import java.util.Map;

/**
 * The Payara Micro instances this module's test classes share ({@link SharedMicro}), one for each deployment that
 * truly differs; a class that needs a server of its own (a store it takes down, an application of its own making,
 * a tour counting from a fresh start) still starts it through Arquillian or {@link MicroInstance}.
 */
final class PayaraServers {

    /** What every deployment of the scenarios adds: requests from loopback may name their client address. */
    static final String TRUSTED = "ratelimiter.trusted-proxies=127.0.0.1,::1\n";

    /**
     * The name of {@link #MEMORY}'s application, the example WAR's own, so at the context root Payara Micro gives the
     * WAR as built, {@code /limiter-example}, not at {@code /}: readiness and metrics stay at the server's root.
     */
    static final String EXAMPLE = "limiter-example";

    /**
     * The example in memory at {@code /limiter-example} ({@link #EXAMPLE}), with a configuration profile active
     * ({@link ExampleDeployments#PROFILES}) and the live limits' reload file ({@link LiveLimitsScenarios#CONFIG},
     * which changes bucket {@code live} only): for {@link PayaraExampleApiIT} and {@link PayaraLiveLimitsIT}.
     */
    static final SharedMicro MEMORY = new SharedMicro("memory", () -> Map.of(EXAMPLE + ".war",
            ExampleDeployments.example(EXAMPLE + ".war",
                    TRUSTED + ExampleDeployments.PROFILES + LiveLimitsScenarios.CONFIG)));

    /** The names of {@link #OLDER_CLIENTS}' deployments: the fields for older clients, and the default fields. */
    static final String DRAFT_6_FIELDS = "draft-6-fields";
    static final String X_RATELIMIT_FIELDS = "x-ratelimit-fields";
    static final String DRAFT_10_FIELDS = "draft-10-fields";
    /** The name of {@link #OLDER_CLIENTS}' deployment with locks seconds long, for {@link PayaraLockLiftIT}. */
    static final String SHORT_LOCKS = "short-locks";

    /**
     * The example three times, with each choice of header fields ({@link OlderClientHeadersScenarios}), for
     * {@link PayaraOlderClientHeadersIT}: on a server of their own, since Payara Micro serves one application's
     * OpenAPI document and sums every application's readiness checks, which {@link #MEMORY}'s scenarios read. Beside
     * them, the example with a login window of 5 seconds and locks of 6 seconds up to 12 ({@link #SHORT_LOCKS}), for
     * {@link PayaraLockLiftIT}, which waits for a lock to end.
     */
    static final SharedMicro OLDER_CLIENTS = new SharedMicro("older-clients", () -> Map.of(
            DRAFT_6_FIELDS + ".war", ExampleDeployments.example(DRAFT_6_FIELDS + ".war",
                    TRUSTED + OlderClientHeadersScenarios.DRAFT_6),
            X_RATELIMIT_FIELDS + ".war", ExampleDeployments.example(X_RATELIMIT_FIELDS + ".war",
                    TRUSTED + OlderClientHeadersScenarios.X_RATELIMIT),
            DRAFT_10_FIELDS + ".war", ExampleDeployments.example(DRAFT_10_FIELDS + ".war", TRUSTED),
            SHORT_LOCKS + ".war", ExampleDeployments.example(SHORT_LOCKS + ".war", TRUSTED
                    + "ratelimiter.buckets.login.window=PT5S\nratelimiter.buckets.login.block=PT6S\n"
                    + "ratelimiter.buckets.login.block-max=PT12S\n")));

    /** The readiness path of the server, for an application not at {@code /}. */
    static final String READINESS = "/health/ready";

    /** The metrics path of the server, for an application not at {@code /}. */
    static final String METRICS = "/metrics";

    /** The names of the applications of {@link #KEYED_AND_FAILING} that must fail to deploy. */
    static final String BAD_PROPERTIES = "bad-properties";
    static final String UNRESOLVED_SECRET = "unresolved-secret";
    static final String MISCONFIGURED = "misconfigured";

    /**
     * The example in memory at {@code /} with the global filter keyed by the tenant resolver
     * ({@link GlobalKeyResolverScenarios#CONFIG}, which changes how every {@code /api/} request is keyed, so not
     * beside the example API's scenarios), for {@code Payara7GlobalKeyResolverIT} (limiter-it/payara7); and three applications that must
     * fail to deploy, for {@code Payara7StartFailureIT}: they add nothing to the server's readiness or metrics.
     */
    static final SharedMicro KEYED_AND_FAILING = new SharedMicro("keyed-and-failing", () -> Map.of(
            "ROOT.war", ExampleDeployments.example(TRUSTED + GlobalKeyResolverScenarios.CONFIG),
            BAD_PROPERTIES + ".war", ExampleDeployments.example(BAD_PROPERTIES + ".war",
                    ExampleDeployments.BAD_PROPERTIES),
            UNRESOLVED_SECRET + ".war", ExampleDeployments.example(UNRESOLVED_SECRET + ".war",
                    ExampleDeployments.UNRESOLVED_SECRET),
            MISCONFIGURED + ".war", ExampleDeployments.example(MISCONFIGURED + ".war", "")
                    .addClass(MisconfiguredService.class)));

    private PayaraServers() {
    }
}
