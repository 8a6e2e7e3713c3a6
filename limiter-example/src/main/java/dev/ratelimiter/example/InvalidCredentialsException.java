package dev.ratelimiter.example;

/**
 * Wrong credentials: the failure the {@code login-address} bucket counts (ratelimiter.buckets.login-address.count=
 * failures, failure-exceptions naming this class), so an office behind one address is not locked out by its own
 * successful logins. {@link LoginResource} answers it with 401.
 */
public class InvalidCredentialsException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** For the account that failed to log in; the message does not name it. */
    public InvalidCredentialsException() {
        super("wrong login or password");
    }
}
