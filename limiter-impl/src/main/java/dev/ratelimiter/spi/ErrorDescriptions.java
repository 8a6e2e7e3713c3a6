package dev.ratelimiter.spi;

import java.util.regex.Pattern;

/**
 * Describes a failure for logs, readiness data and events without leaking where the store is or who logs in:
 * the exception's simple type name and its message with URIs, host:port pairs, IP addresses and anything after
 * {@code password}/{@code user} removed. A database failure names its SQLSTATE, which says what kind of failure it is
 * (25006: the session is read-only) where the message is only the server's prose.
 *
 * <p>In the SPI so that a store's own log lines and setup errors describe a failure as the readiness data
 * and the library's own logs do.
 */
public final class ErrorDescriptions {

    private static final Pattern URI = Pattern.compile("[a-zA-Z][a-zA-Z0-9+.-]*://\\S+");
    private static final Pattern CREDENTIAL = Pattern.compile("(?i)(password|passwd|user(name)?|auth)\\S*[=:\\s]+\\S+");
    private static final Pattern HOST_PORT = Pattern.compile("[\\w.-]+:\\d{2,5}");
    private static final Pattern IPV4 = Pattern.compile("\\b\\d{1,3}(\\.\\d{1,3}){3}\\b");
    private static final Pattern IPV6 = Pattern.compile("\\[?[0-9a-fA-F]{0,4}(:[0-9a-fA-F]{0,4}){2,7}]?");
    private static final int MAX_LENGTH = 240;

    private ErrorDescriptions() {
    }

    /**
     * @param failure any throwable; its innermost cause is described when it has one
     * @return {@code "SocketTimeoutException: Read timed out"} or
     *         {@code "PSQLException [SQLSTATE 25006]: ERROR: cannot execute INSERT in a read-only transaction"}, at
     *         most about 240 characters
     */
    public static String describe(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage() == null ? "" : root.getMessage();
        message = URI.matcher(message).replaceAll("<address>");
        message = CREDENTIAL.matcher(message).replaceAll("$1 <redacted>");
        message = HOST_PORT.matcher(message).replaceAll("<address>");
        message = IPV4.matcher(message).replaceAll("<address>");
        message = IPV6.matcher(message).replaceAll("<address>");
        String state = root instanceof java.sql.SQLException sql && sql.getSQLState() != null
                ? " [SQLSTATE " + sql.getSQLState() + "]" : "";
        String description = root.getClass().getSimpleName() + state + (message.isBlank() ? "" : ": " + message.strip());
        return description.length() <= MAX_LENGTH ? description : description.substring(0, MAX_LENGTH) + "...";
    }
}
