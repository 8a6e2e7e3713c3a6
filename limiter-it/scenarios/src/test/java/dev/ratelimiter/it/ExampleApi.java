package dev.ratelimiter.it;

import jakarta.json.Json;
import jakarta.json.JsonObject;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A client of the example API that sends every request as if forwarded for one client address: the test
 * deployments trust 127.0.0.1 as a proxy, so each scenario is its own anonymous client.
 */
public final class ExampleApi {

    private static final AtomicInteger NEXT_CLIENT = new AtomicInteger(1);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private final URI base;
    private final String clientAddress;
    private final List<String> headers;

    private ExampleApi(URI base, String clientAddress, List<String> headers) {
        this.base = base;
        this.clientAddress = clientAddress;
        this.headers = headers;
    }

    /** A client with an address no other scenario of this run uses (from TEST-NET-2, RFC 5737). */
    public static ExampleApi newClient(URI base) {
        int n = NEXT_CLIENT.getAndIncrement();
        return new ExampleApi(base, "198.51." + (100 + n / 250) + "." + (1 + n % 250), List.of());
    }

    /**
     * A client forwarded for the given address: for the example's allow and deny lists, whose documentation range
     * (203.0.113.0/24, RFC 5737) no {@link #newClient} address is in.
     */
    public static ExampleApi withAddress(URI base, String clientAddress) {
        return new ExampleApi(base, clientAddress, List.of());
    }

    /** This client (the same address) sending one more header with every request. */
    public ExampleApi withHeader(String name, String value) {
        List<String> more = new ArrayList<>(headers);
        more.add(name);
        more.add(value);
        return new ExampleApi(base, clientAddress, List.copyOf(more));
    }

    public String clientAddress() {
        return clientAddress;
    }

    public HttpResponse<String> get(String path) {
        return send(request(path).GET());
    }

    public HttpResponse<String> get(String path, String bearerToken) {
        return send(request(path).header("Authorization", "Bearer " + bearerToken).GET());
    }

    /** A GET with these headers, given as name, value, name, value... */
    public HttpResponse<String> getWith(String path, String... headers) {
        HttpRequest.Builder builder = request(path).GET();
        for (int i = 0; i < headers.length; i += 2) {
            builder.header(headers[i], headers[i + 1]);
        }
        return send(builder);
    }

    public HttpResponse<String> login(String login, String password) {
        String body = Json.createObjectBuilder().add("login", login).add("password", password).build().toString();
        return send(request("api/login").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    public HttpResponse<String> postJson(String path, String body) {
        return send(request(path).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    /** A POST of {@code body} as JSON with these headers, given as name, value, name, value... */
    public HttpResponse<String> postJsonWith(String path, String body, String... headers) {
        HttpRequest.Builder builder = request(path).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        for (int i = 0; i < headers.length; i += 2) {
            builder.header(headers[i], headers[i + 1]);
        }
        return send(builder);
    }

    public HttpResponse<String> options(String path, String... headers) {
        HttpRequest.Builder builder = request(path).method("OPTIONS", HttpRequest.BodyPublishers.noBody());
        for (int i = 0; i < headers.length; i += 2) {
            builder.header(headers[i], headers[i + 1]);
        }
        return send(builder);
    }

    public static JsonObject json(HttpResponse<String> response) {
        return Json.createReader(new StringReader(response.body())).readObject();
    }

    private HttpRequest.Builder request(String path) {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path))
                .timeout(Duration.ofSeconds(30))
                .header("X-Forwarded-For", clientAddress);
        for (int i = 0; i < headers.size(); i += 2) {
            request.header(headers.get(i), headers.get(i + 1));
        }
        return request;
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) {
        try {
            return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
