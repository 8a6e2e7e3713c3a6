package dev.ratelimiter.internal.valkey;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * One of the store's Lua scripts, a resource beside this class: its text and the SHA-1 the server caches it by, each
 * also as the bytes Jedis sends (EVAL, EVALSHA), made once when the class loads. {@link ScriptRunner} runs them.
 *
 * @param text     the script, as the jar has it
 * @param sha      its SHA-1, 40 lowercase hex digits: what EVALSHA names it by
 * @param bytes    {@code text} in UTF-8
 * @param shaBytes {@code sha} in ASCII
 */
record ValkeyScript(String text, String sha, byte[] bytes, byte[] shaBytes) {

    /** {@code decide.lua}: decisions of one or more items, every algorithm, in one round trip. */
    static final ValkeyScript DECIDE = load("decide.lua");
    /** {@code refund.lua}: refunds of one or more calls on the keys {@code decide.lua} keeps. */
    static final ValkeyScript REFUND = load("refund.lua");
    /** {@code permits.lua}: a concurrency bucket's permits taken, given back or renewed. */
    static final ValkeyScript PERMITS = load("permits.lua");

    private static ValkeyScript load(String name) {
        String text;
        try (InputStream in = ValkeyScript.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is missing from the jar");
            }
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String sha = sha1(text);
        return new ValkeyScript(text, sha, text.getBytes(StandardCharsets.UTF_8),
                sha.getBytes(StandardCharsets.US_ASCII));
    }

    private static String sha1(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
