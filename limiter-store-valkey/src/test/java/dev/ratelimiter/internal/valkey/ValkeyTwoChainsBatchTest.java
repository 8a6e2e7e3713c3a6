package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.chain.BatchingLimiter;
import dev.ratelimiter.internal.core.settings.DenyCacheSettings;
import dev.ratelimiter.spi.StoreItem;
import dev.ratelimiter.testing.TestServers;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two replicas (two chains on one Valkey) deciding a method's two buckets in one call each, alternately: the
 * counts are shared, as the two-instance scenario on Payara checks end to end.
 */
class ValkeyTwoChainsBatchTest {

    @Test
    @DisplayName("two replicas alternating on a method's two buckets share the account's limit: 5 allowed in all")
    void sharedAcrossReplicas() {
        Bucket address = Bucket.of("login-address", 50, Duration.ofMinutes(15));
        Bucket account = Bucket.of("login", 5, Duration.ofMinutes(15));
        String user = "two-" + UUID.randomUUID();
        DenyCacheSettings refusals = new DenyCacheSettings(Duration.ofSeconds(1), 1_000);
        try (ValkeyChain first = ValkeyChain.standalone(TestServers.valkeyUrl(), refusals);
             ValkeyChain second = ValkeyChain.standalone(TestServers.valkeyUrl(), refusals)) {
            int allowed = 0;
            for (int i = 0; i < 12; i++) {
                ValkeyChain replica = i % 2 == 0 ? first : second;
                Verdict[] verdicts = BatchingLimiter.consumeAll(replica.limiter, List.of(
                        new StoreItem(address, "127.0.0.1", 1), new StoreItem(account, user, 1)));
                boolean all = verdicts.length == 2 && verdicts[1].isAllowed() && verdicts[0].isAllowed();
                allowed += all ? 1 : 0;
            }
            assertThat(allowed).isEqualTo(5);
        }
    }
}
