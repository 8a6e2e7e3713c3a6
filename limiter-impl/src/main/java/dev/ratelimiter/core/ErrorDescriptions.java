package dev.ratelimiter.core;

import java.util.regex.Pattern;

/**
 * Describes a failure for logs, readiness data and events without leaking where the store is or who logs in:
 * the exception's simple type name and its message with URIs, host:port pairs, IP addresses and anything after
 * {@code password}/{@code user} removed.
 */
public final class ErrorDescriptions {

    private static final Pattern URI = Pattern.compile("[a-zA-Z][a-zA-Z0-9+.-]*://\\S+");
    private static final Pattern CREDENTIAL = Pattern.compile("(?i)(password|passwd|user(name)?|auth)\\S*[=:\\s]+\\S+");
    private static final Pattern HOST_PORT = Pattern.compile("[\\w.-]+:\\d{2,5}");
    private static final Pattern IPV4 = Pattern.compile("\\b\\d{1,3}(\\.\\d{1,3}){3}\\b");
    private static final Pattern IPV6 = Pattern.compile("\\[?[0-9a-fA-F]{0,4}(:[0-9a-fA-F]{0,4}){2,7}]?");
    private static final int MAX_LENGTH = 200;

    private ErrorDescriptions() {
    }

    /**
     * @param failure any throwable; its innermost cause is described when it has one
     * @return {@code "SocketTimeoutException: Read timed out"}, at most about 200 characters
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
        String description = root.getClass().getSimpleName() + (message.isBlank() ? "" : ": " + message.strip());
        return description.length() <= MAX_LENGTH ? description : description.substring(0, MAX_LENGTH) + "...";
    }
}
