package dev.ratelimiter.example;

import dev.ratelimiter.KeyNormalization;
import dev.ratelimiter.RateLimitKey;
import dev.ratelimiter.RateLimited;
import dev.ratelimiter.RateLimits;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.util.Optional;

/**
 * Checks credentials, at most 5 attempts per 15 minutes per account (bucket {@code login}), whatever address they
 * come from. A successful login clears the account's counter.
 */
@ApplicationScoped
public class LoginService {

    @Inject
    DemoUsers users;

    @Inject
    Tokens tokens;

    @Inject
    RateLimits limits;

    /** A bearer token if the credentials are right; throws {@code RateLimitExceededException} past the limit. */
    @RateLimited(bucket = "login")
    public Optional<String> login(@RateLimitKey(normalize = KeyNormalization.LOGIN) String login, String password) {
        Optional<String> user = users.authenticate(login, password);
        user.ifPresent(name -> limits.reset("login", login, KeyNormalization.LOGIN));
        return user.map(tokens::issue);
    }
}
