package dev.ratelimiter.example;

import dev.ratelimiter.BucketName;
import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.RateLimitBucket;
import dev.ratelimiter.RateLimitKey;
import dev.ratelimiter.RateLimited;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/**
 * Checks credentials, at most 50 failed attempts per 15 minutes per client address (bucket {@code login-address},
 * which counts failures only: a successful login is given back) and 5 attempts per 15 minutes per account (bucket
 * {@code login}), whatever address they come from. The address is decided first: an address trying many accounts
 * is stopped before its attempts count against those accounts. A successful login clears the account's counter.
 */
@ApplicationScoped
public class LoginService {

    @Inject
    DemoUsers users;

    @Inject
    Tokens tokens;

    // Named here, checked when the application starts (docs/guide.md#deciding-in-code).
    @Inject
    @BucketName("login")
    RateLimitBucket logins;

    /**
     * A bearer token if the credentials are right.
     *
     * @throws InvalidCredentialsException if they are not: the failure {@code login-address} counts
     *                                     (docs/guide.md#counting-failures-only)
     * @throws dev.ratelimiter.RateLimitExceededException past a limit
     */
    @RateLimited(bucket = "login-address", key = RateLimited.Key.CLIENT_ADDRESS)
    @RateLimited(bucket = "login", key = RateLimited.Key.PARAMETER)
    public String login(@RateLimitKey(normalize = KeyNormalization.LOGIN) String login, String password) {
        String user = users.authenticate(login, password).orElseThrow(InvalidCredentialsException::new);
        logins.reset(login, KeyNormalization.LOGIN);
        return tokens.issue(user);
    }
}
