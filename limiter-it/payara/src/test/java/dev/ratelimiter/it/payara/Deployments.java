package dev.ratelimiter.it.payara;

import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.importer.ZipImporter;
import org.jboss.shrinkwrap.api.spec.JavaArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** The example WAR as built by its module, prepared for a test deployment. */
final class Deployments {

    private Deployments() {
    }

    /**
     * The example at the root context ({@code ROOT.war}), with one more configuration source on top of the
     * example's own: {@code extraConfig} (properties text) at ordinal 200.
     */
    static WebArchive example(String extraConfig) {
        File war = new File(System.getProperty("example.war"));
        WebArchive archive = ShrinkWrap.create(ZipImporter.class, "ROOT.war").importFrom(war).as(WebArchive.class);
        JavaArchive config = ShrinkWrap.create(JavaArchive.class, "it-config.jar")
                .addAsManifestResource(new StringAsset("config_ordinal=200\n" + extraConfig),
                        "microprofile-config.properties");
        return archive.addAsLibrary(config);
    }

    /**
     * The deployment's root on loopback: the adapter reports the machine's own address, but the tests send
     * traffic to 127.0.0.1 only, which the test configuration trusts as a proxy.
     */
    static URI loopback(URL deployment) {
        return URI.create("http://127.0.0.1:" + deployment.getPort() + "/");
    }

    /** The status of a GET of {@code path} below the deployment's root. */
    static int status(URL deployment, String path) throws IOException, InterruptedException {
        return HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(loopback(deployment).resolve(path)).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
