package dev.ratelimiter.example;

import jakarta.enterprise.context.ApplicationScoped;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The demo accounts (alice / wonderland, bob / builder, and dave / drummer, whom the scenarios lock out); a real
 * application asks its identity store.
 */
@ApplicationScoped
public class DemoUsers {

    private static final Map<String, String> PASSWORDS = Map.of("alice", "wonderland", "bob", "builder",
            "dave", "drummer");

    /** The account's canonical name if the password matches. */
    public Optional<String> authenticate(String login, String password) {
        if (login == null || password == null) {
            return Optional.empty();
        }
        String user = login.strip().toLowerCase(Locale.ROOT);
        String expected = PASSWORDS.get(user);
        boolean matches = expected != null && MessageDigest.isEqual(
                expected.getBytes(StandardCharsets.UTF_8), password.getBytes(StandardCharsets.UTF_8));
        return matches ? Optional.of(user) : Optional.empty();
    }
}
