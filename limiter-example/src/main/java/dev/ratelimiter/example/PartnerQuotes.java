package dev.ratelimiter.example;

import dev.ratelimiter.RateLimitKey;
import dev.ratelimiter.RateLimited;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/**
 * The example's outbound calls to its partner ({@link FakePartner}), limited by bucket {@code partner}: 2 quotes a
 * second per account, a call over it waiting for its turn up to 3 seconds rather than refused, and the partner's 429
 * holding every call of the account, on every replica, until its {@code Retry-After}
 * (docs/guide.md#waiting-instead-of-refusing, docs/guide.md#holds-from-the-upstream).
 */
@ApplicationScoped
public class PartnerQuotes {

    @Inject
    FakePartner partner;

    /** The partner's quote of {@code symbol}, for {@code account}, at the partner's limit. */
    @RateLimited(bucket = "partner")
    public String quote(@RateLimitKey String account, String symbol) {
        return partner.quote(account, symbol);
    }
}
