package dev.ratelimiter.it.payara;

import dev.ratelimiter.it.OlderClientHeadersScenarios;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;

/**
 * The fields for older clients read by an independent parser ({@link OlderClientHeadersScenarios}) on a Payara Micro
 * instance of their own ({@link PayaraServers#OLDER_CLIENTS}). One server is enough: the fields are written by one
 * JAX-RS response filter, the same on every server, that only adds headers.
 */
class PayaraOlderClientHeadersIT extends OlderClientHeadersScenarios {

    @RegisterExtension
    static final SharedMicro SERVER = PayaraServers.OLDER_CLIENTS;

    @Override
    protected URI baseUri(String extraConfig) {
        return SERVER.root(switch (extraConfig) {
            case DRAFT_6 -> PayaraServers.DRAFT_6_FIELDS;
            case X_RATELIMIT -> PayaraServers.X_RATELIMIT_FIELDS;
            default -> PayaraServers.DRAFT_10_FIELDS;
        });
    }
}
