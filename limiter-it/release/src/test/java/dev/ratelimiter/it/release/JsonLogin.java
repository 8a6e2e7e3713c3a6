package dev.ratelimiter.it.release;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * A walkthrough's login (docs/servers.md#a-new-quarkus-application) from Java, for what the page's {@code curl}
 * loop does not print: {@code POST /api/login} with the JSON body {@code {"login":"...","password":"..."}},
 * answered as the server wrote it (its reason phrase, its RateLimit-Policy header).
 * {@link HttpURLConnection} rather than {@code java.net.http}, which hides the reason phrase.
 */
final class JsonLogin {

    private JsonLogin() {
    }

    /**
     * Posts one login to {@code base + "/api/login"}.
     *
     * @param base such as {@code http://127.0.0.1:8080}
     * @return the status code, the reason phrase and the RateLimit-Policy header, as in
     *         {@code 401 Unauthorized; "api-anonymous";q=120;w=60, "login";q=3;w=60} ({@code null} for no header)
     * @throws UncheckedIOException if the server does not answer
     */
    static String attempt(String base, String login, String password) {
        try {
            HttpURLConnection connection = (HttpURLConnection) URI.create(base + "/api/login").toURL()
                    .openConnection();
            try {
                connection.setRequestMethod("POST");
                connection.setRequestProperty("Content-Type", "application/json");
                connection.setDoOutput(true);
                try (OutputStream body = connection.getOutputStream()) {
                    body.write("{\"login\":\"%s\",\"password\":\"%s\"}".formatted(login, password)
                            .getBytes(StandardCharsets.UTF_8));
                }
                String answer = connection.getResponseCode() + " " + connection.getResponseMessage() + "; "
                        + connection.getHeaderField("RateLimit-Policy");
                drain(connection);
                return answer;
            } finally {
                connection.disconnect();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads the status of {@code uri} with a GET, such as {@code 200 OK}; for readiness. */
    static String status(URI uri) throws IOException {
        HttpURLConnection connection = (HttpURLConnection) uri.toURL().openConnection();
        try {
            String answer = connection.getResponseCode() + " " + connection.getResponseMessage();
            drain(connection);
            return answer;
        } finally {
            connection.disconnect();
        }
    }

    /** The body of a GET of {@code uri}, such as a readiness check's JSON. */
    static String body(URI uri) throws IOException {
        HttpURLConnection connection = (HttpURLConnection) uri.toURL().openConnection();
        try (InputStream body = connection.getResponseCode() < 400
                ? connection.getInputStream() : connection.getErrorStream()) {
            return body == null ? "" : new String(body.readAllBytes(), StandardCharsets.UTF_8);
        } finally {
            connection.disconnect();
        }
    }

    /** Reads the body to its end, so the connection can be reused. */
    private static void drain(HttpURLConnection connection) throws IOException {
        try (InputStream body = connection.getResponseCode() < 400
                ? connection.getInputStream() : connection.getErrorStream()) {
            if (body != null) {
                body.readAllBytes();
            }
        }
    }
}
