package dev.ratelimiter.example;

import jakarta.enterprise.context.ApplicationScoped;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** Demo bearer tokens held in memory: issued at login, looked up by {@link BearerTokenFilter}. */
@ApplicationScoped
public class Tokens {

    private final SecureRandom random = new SecureRandom();
    private final Map<String, String> users = new ConcurrentHashMap<>();

    /** A new token for the user. */
    public String issue(String user) {
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        String token = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        users.put(token, user);
        return token;
    }

    /** The user a token was issued to. */
    public Optional<String> user(String token) {
        return Optional.ofNullable(users.get(token));
    }
}
