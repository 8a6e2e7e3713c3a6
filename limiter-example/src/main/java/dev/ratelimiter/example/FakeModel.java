package dev.ratelimiter.example;

import jakarta.enterprise.context.ApplicationScoped;

/**
 * Stands for a language model behind an HTTP client: it answers a prompt and reports the tokens it used, known only
 * once it has answered. This one uses 100 tokens per word of the prompt, so the tour's numbers are easy to follow.
 */
@ApplicationScoped
public class FakeModel {

    /** Tokens per word of the prompt. */
    static final long TOKENS_PER_WORD = 100;

    /** Answers {@code prompt}, reporting the tokens used. */
    public Completion complete(String prompt) {
        String text = prompt == null ? "" : prompt.strip();
        long words = text.isEmpty() ? 0 : text.split("\\s+").length;
        return new Completion("A completion of " + words + " words.", words * TOKENS_PER_WORD);
    }
}
