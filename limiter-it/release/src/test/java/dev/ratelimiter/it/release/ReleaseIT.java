package dev.ratelimiter.it.release;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The release, as a publisher runs it and as a new user meets it (README, Releasing): {@code -Prelease deploy}
 * signs with a key made for this run and deploys to a file repository under target/; then the README's new
 * Quarkus and Open Liberty applications, their files taken from the README, are built against that repository
 * alone and run.
 *
 * <p>The release builds a copy of the checkout whose version is this run's own ({@code <version>-rt<time>}), as a
 * release sets its version first: the copy leaves this build's target/ alone, and no local repository holds that
 * version, so the applications can only have it from the file repository. No build here writes to the shared
 * {@code ~/.m2} (see {@link MavenRun}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReleaseIT {

    private static final List<String> PUBLISHED = List.of("ratelimiter-parent", "limiter-bom", "limiter-api",
            "limiter-impl");
    /** Built with the release but never deployed. */
    private static final List<String> UNPUBLISHED = List.of("limiter-example", "limiter-it");

    private final Path checkout = Path.of(System.getProperty("release.checkout")).toAbsolutePath().normalize();
    private final Path work = Path.of(System.getProperty("release.work"));
    private final String version = System.getProperty("release.version").replace("-SNAPSHOT", "")
            + "-rt" + System.currentTimeMillis();
    private final Path repository = work.resolve("repository");
    private Path gnupg;
    private final List<Path> apps = new ArrayList<>();
    private final List<Process> servers = new ArrayList<>();
    private Path libertyServer;

    @BeforeAll
    void release() throws IOException {
        deleteTree(work);
        Path source = copyCheckout(work.resolve("source"));
        // A short path: gpg-agent's socket lives in the home directory, and socket paths are short.
        gnupg = Files.createTempDirectory("rl-gpg");
        assertThat(run(List.of("gpg", "--batch", "--homedir", gnupg.toString(), "--passphrase", "",
                "--quick-gen-key", "Release Test <release-test@example.invalid>", "ed25519", "sign", "never")))
                .as("a throwaway signing key").isZero();
        Path log = work.resolve("release.log");
        int exit = MavenRun.run(source.resolve("mvnw"), source, work.resolve("m2-release"), log, List.of(
                "-Prelease", "deploy", "-DskipTests",
                "-pl", "limiter-bom,limiter-api,limiter-impl,limiter-example,limiter-it", "-am",
                "-DaltDeploymentRepository=release-test::file:" + repository,
                "-Dgpg.homedir=" + gnupg));
        assertThat(exit).as("./mvnw -Prelease deploy, log %s:\n%s", log, MavenRun.tail(log)).isZero();
    }

    @AfterAll
    void cleanUp() throws IOException {
        for (Process server : servers) {
            server.destroy();
            server.onExit().join();
        }
        if (libertyServer != null) {
            run(List.of(libertyServer.toString(), "stop", "defaultServer"));
        }
        for (Path app : apps) {
            deleteTree(app);
        }
        if (gnupg != null) {
            new ProcessBuilder("gpgconf", "--homedir", gnupg.toString(), "--kill", "gpg-agent").start();
            deleteTree(gnupg);
        }
    }

    @Test
    @DisplayName("the release deploys the parent, the BOM, the API and the implementation, not the example or the "
            + "integration tests")
    void deploysThePublishedModulesOnly() throws IOException {
        for (String artifact : PUBLISHED) {
            assertThat(deployed(artifact, ".pom")).as(artifact).exists();
        }
        for (String artifact : UNPUBLISHED) {
            assertThat(repository.resolve("dev/ratelimiter/" + artifact)).as(artifact).doesNotExist();
        }
    }

    @Test
    @DisplayName("every deployed file has a signature that the run's key verifies")
    void everyFileIsSigned() throws IOException {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(repository.resolve("dev/ratelimiter"))) {
            files = walk.filter(Files::isRegularFile).filter(file -> {
                String name = file.getFileName().toString();
                return !name.startsWith("maven-metadata") && !name.endsWith(".asc") && !name.endsWith(".md5")
                        && !name.endsWith(".sha1");
            }).toList();
        }
        assertThat(files).hasSizeGreaterThanOrEqualTo(13);
        for (Path file : files) {
            Path signature = file.resolveSibling(file.getFileName() + ".asc");
            assertThat(signature).as("signature of %s", file.getFileName()).exists();
            assertThat(run(List.of("gpg", "--batch", "--homedir", gnupg.toString(), "--verify",
                    signature.toString(), file.toString())))
                    .as("gpg --verify %s", signature.getFileName()).isZero();
        }
    }

    @Test
    @DisplayName("limiter-api and limiter-impl come with sources, javadoc, a CycloneDX SBOM and a module name")
    void releaseArtifacts() throws IOException {
        Map<String, String> moduleNames = Map.of("limiter-api", "dev.ratelimiter",
                "limiter-impl", "dev.ratelimiter.impl");
        for (Map.Entry<String, String> module : moduleNames.entrySet()) {
            String artifact = module.getKey();
            assertThat(entries(deployed(artifact, "-sources.jar"))).as(artifact).anyMatch(e -> e.endsWith(".java"));
            assertThat(entries(deployed(artifact, "-javadoc.jar"))).as(artifact).contains("index.html");
            assertThat(Files.readString(deployed(artifact, "-cyclonedx.json")))
                    .as(artifact).contains("\"bomFormat\" : \"CycloneDX\"")
                    .contains("pkg:maven/dev.ratelimiter/" + artifact + "@" + version);
            try (JarFile jar = new JarFile(deployed(artifact, ".jar").toFile())) {
                assertThat(jar.getManifest().getMainAttributes().getValue("Automatic-Module-Name"))
                        .as(artifact).isEqualTo(module.getValue());
            }
        }
    }

    @Test
    @DisplayName("the poms carry what Maven Central requires; the BOM stands alone and pins only the library")
    void centralMetadata() throws IOException {
        String parent = Files.readString(deployed("ratelimiter-parent", ".pom"));
        assertThat(parent).contains("<url>", "<name>Apache-2.0</name>", "<developers>", "<scm",
                "<connection>", "<description>");
        String bom = Files.readString(deployed("limiter-bom", ".pom"));
        assertThat(bom).doesNotContain("<parent>").contains("<name>Apache-2.0</name>", "<developers>", "<scm",
                "<url>", "<description>");
        assertThat(bom.split("<artifactId>", -1)).as("artifactIds in the BOM: its own and the two modules")
                .hasSize(4);
        assertThat(bom).contains("<artifactId>limiter-api</artifactId>", "<artifactId>limiter-impl</artifactId>")
                .doesNotContain("jedis", "postgresql", "HikariCP");
        for (String artifact : List.of("limiter-api", "limiter-impl")) {
            assertThat(Files.readString(deployed(artifact, ".pom"))).as(artifact).contains("<name>", "<description>");
        }
    }

    @Test
    @DisplayName("a new Quarkus application, its files from the README, gets the library from the release alone and "
            + "answers 429 Too Many Requests past the limit")
    void newQuarkusApplication() throws IOException {
        int port = freePort();
        Path app = buildApplication("quarkus-app", Map.of(), List.of("package"));
        assertThat(jarNames(app.resolve("target/quarkus-app/lib/main"))).as("what the library brings")
                .anyMatch(name -> name.startsWith("dev.ratelimiter.limiter-impl-"))
                .anyMatch(name -> name.startsWith("dev.ratelimiter.limiter-api-"))
                .anyMatch(name -> name.startsWith("com.github.seancfoley.ipaddress-"));
        servers.add(new ProcessBuilder(javaExecutable(), "-Dquarkus.http.port=" + port, "-jar",
                app.resolve("target/quarkus-app/quarkus-run.jar").toString())
                .redirectErrorStream(true).redirectOutput(work.resolve("quarkus-app-run.log").toFile()).start());
        assertLimited(port, "/q/health/ready", "429 Too Many Requests");
    }

    @Test
    @DisplayName("a new Open Liberty application, its files from the README, gets the library from the release alone "
            + "and answers 429 Undefined past the limit")
    void newLibertyApplication() throws IOException {
        int port = freePort();
        Map<String, String> classes = new LinkedHashMap<>();
        ReadmeFiles.of(checkout.resolve("README.md"), "quarkus-app").forEach((path, text) -> {
            if (path.startsWith("src/main/java/")) {
                classes.put(path, text);
            }
        });
        assertThat(classes).as("the Quarkus application's classes, which the Liberty one shares").hasSize(2);
        Path app = buildApplication("liberty-app", classes,
                List.of("-Dliberty.var.http.port=" + port, "package", "liberty:create", "liberty:deploy"));
        assertThat(jarNames(app.resolve("target/shop/WEB-INF/lib"))).as("what the library brings")
                .anyMatch(name -> name.startsWith("limiter-impl-"))
                .anyMatch(name -> name.startsWith("limiter-api-"))
                .anyMatch(name -> name.startsWith("ipaddress-"));
        Path server = app.resolve("target/liberty/wlp/bin/server");
        libertyServer = server;
        assertThat(run(List.of(server.toString(), "start", "defaultServer"))).as("server start").isZero();
        assertLimited(port, "/health/ready", "429 Undefined");
    }

    /**
     * Builds the README's {@code application} (with {@code extraFiles}) in a new directory outside the checkout,
     * with the release's version of the library and the file repository as its only source of the library.
     */
    private Path buildApplication(String application, Map<String, String> extraFiles, List<String> goals)
            throws IOException {
        Map<String, String> files = ReadmeFiles.of(checkout.resolve("README.md"), application);
        assertThat(files).containsKey("pom.xml");
        String readmeVersion = "<ratelimiter.version>" + System.getProperty("release.version") + "<";
        assertThat(files.get("pom.xml")).as("the README's version is the project's").contains(readmeVersion);
        Path app = Files.createTempDirectory("rl-" + application);
        apps.add(app);
        ReadmeFiles.write(app, files);
        ReadmeFiles.write(app, extraFiles);
        Path pom = app.resolve("pom.xml");
        Files.writeString(pom, Files.readString(pom).replace(readmeVersion,
                "<ratelimiter.version>" + version + "<"));
        Path settings = app.resolve("release-settings.xml");
        Files.writeString(settings, """
                <settings>
                  <profiles>
                    <profile>
                      <id>release-test</id>
                      <repositories>
                        <repository>
                          <id>release-test</id>
                          <url>%s</url>
                        </repository>
                      </repositories>
                    </profile>
                  </profiles>
                  <activeProfiles><activeProfile>release-test</activeProfile></activeProfiles>
                </settings>
                """.formatted(repository.toUri()));
        Path m2 = work.resolve("m2-" + application);
        Path log = work.resolve(application + ".log");
        List<String> args = new ArrayList<>(List.of("-s", settings.toString()));
        args.addAll(goals);
        int exit = MavenRun.run(checkout.resolve("mvnw"), app, m2, log, args);
        assertThat(exit).as("%s's build, log %s:\n%s", application, log, MavenRun.tail(log)).isZero();
        assertThat(Files.readString(m2.resolve("dev/ratelimiter/limiter-impl/" + version + "/_remote.repositories")))
                .as("limiter-impl came from the release's repository").contains(">release-test=");
        return app;
    }

    /**
     * Waits for the application on {@code port} to be ready, then asks for {@code /api/orders} four times: the
     * bucket allows three a minute, and {@code @ApplicationPath("/api")} puts the resource under the global limit's
     * default prefix, /api/, too.
     */
    private static void assertLimited(int port, String readiness, String refusal) {
        String base = "http://127.0.0.1:" + port;
        await().atMost(Duration.ofSeconds(120)).ignoreExceptions()
                .until(() -> get(URI.create(base + readiness)).startsWith("200 OK"));
        List<String> answers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            try {
                answers.add(get(URI.create(base + "/api/orders")));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        String policy = "; \"api-anonymous\";q=120;w=60, \"orders\";q=3;w=60";
        assertThat(answers).containsExactly("200 OK" + policy, "200 OK" + policy, "200 OK" + policy,
                refusal + policy);
    }

    private static List<String> jarNames(Path directory) {
        try (Stream<Path> jars = Files.list(directory)) {
            return jars.map(jar -> jar.getFileName().toString()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The status code, reason phrase and RateLimit-Policy header of a GET, as the server wrote them. */
    private static String get(URI uri) throws IOException {
        HttpURLConnection connection = (HttpURLConnection) uri.toURL().openConnection();
        try {
            return connection.getResponseCode() + " " + connection.getResponseMessage() + "; "
                    + connection.getHeaderField("RateLimit-Policy");
        } finally {
            try (InputStream body = connection.getResponseCode() < 400
                    ? connection.getInputStream() : connection.getErrorStream()) {
                if (body != null) {
                    body.readAllBytes();
                }
            }
            connection.disconnect();
        }
    }

    private Path deployed(String artifact, String suffix) {
        return repository.resolve("dev/ratelimiter/" + artifact + "/" + version + "/" + artifact + "-" + version
                + suffix);
    }

    private static List<String> entries(Path jar) throws IOException {
        try (JarFile file = new JarFile(jar.toFile())) {
            return file.stream().map(entry -> entry.getName()).toList();
        }
    }

    /**
     * Copies what the release builds: every pom (the root lists every module), and the whole of the modules it
     * builds, with this run's version in place of the checkout's.
     */
    private Path copyCheckout(Path target) throws IOException {
        String checkoutVersion = System.getProperty("release.version");
        List<String> built = List.of("limiter-bom/", "limiter-api/", "limiter-impl/", "limiter-example/",
                "migrations/", ".mvn/");
        try (Stream<Path> walk = Files.walk(checkout)) {
            for (Path file : walk.filter(Files::isRegularFile).toList()) {
                String relative = checkout.relativize(file).toString().replace('\\', '/');
                if (relative.startsWith(".git/") || relative.contains("target/")) {
                    continue;
                }
                boolean pom = file.getFileName().toString().equals("pom.xml");
                boolean root = !relative.contains("/") && List.of("mvnw", "LICENSE", "NOTICE").contains(relative);
                if (!pom && !root && built.stream().noneMatch(relative::startsWith)) {
                    continue;
                }
                Path copy = target.resolve(relative);
                Files.createDirectories(copy.getParent());
                if (pom) {
                    Files.writeString(copy, Files.readString(file).replace(checkoutVersion, version));
                } else {
                    Files.copy(file, copy);
                }
            }
        }
        target.resolve("mvnw").toFile().setExecutable(true);
        return target;
    }

    private static int run(List<String> command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int exit = process.waitFor();
            if (exit != 0) {
                System.err.println(String.join(" ", command) + ":\n" + output);
            }
            return exit;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static String javaExecutable() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
