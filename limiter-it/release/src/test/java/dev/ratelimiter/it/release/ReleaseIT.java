package dev.ratelimiter.it.release;

import dev.ratelimiter.testing.TestServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The release, as a publisher runs it (CONTRIBUTING.md#releasing), and the walkthroughs of
 * docs/servers.md#a-new-quarkus-application, docs/servers.md#a-new-open-liberty-application and
 * docs/servers.md#a-new-wildfly-application, as a new user follows them: {@code -Prelease deploy} signs with a key
 * made for this run and deploys to a file repository under target/; then the three applications, their files taken from docs/servers.md, are built with the system Maven
 * ({@link SystemMaven}), started with the page's commands, and sent the page's JSON logins until the 429; and the
 * Quarkus one again with the page's additions for Valkey (docs/servers.md#counting-in-valkey-or-redis), counting
 * in a {@code redis-server} of the test's own, and the Open Liberty one with the page's additions for PostgreSQL
 * (docs/servers.md#counting-in-postgresql), its table made by the page's psql loop in a schema of the test's own on
 * the tests' PostgreSQL ({@link TestServers#postgres()}), and the WildFly one likewise, through the jta=false
 * datasource the page's jboss-cli script declares (docs/servers.md#counting-in-postgresql-through-a-wildfly-datasource).
 * WildFly starts with the page's command at a port offset whose four ports are free.
 *
 * <p>The release builds a copy of the whole checkout whose version is this run's own ({@code <version>-rt<time>}),
 * as a release sets its version first: the copy leaves this build's target/ alone, and no local repository holds
 * that version, so the applications can only have it from the file repository. It runs with a PATH that lacks
 * {@link #HIDDEN} (redis-server, initdb, promtool...): {@code deploy} runs every phase {@code install} does, over
 * every module (limiter-bench and the alert rules' check included), and {@code -Prelease} adds only the sources,
 * javadoc, SBOM and signatures, so its success proves that {@code ./mvnw install -DskipTests} needs a JDK and
 * nothing else (CONTRIBUTING.md#building-and-testing) without a second build of the reactor. The release build
 * writes to a local repository of its own (see {@link MavenRun#wrapper}).
 *
 * <p>The applications build as the reader's do, with the user's local repository ({@code settings.localRepository}
 * of this build): Maven 3.8 has no {@code maven.repo.local.tail}, and a repository of their own would download
 * Quarkus, Liberty's 350 MB runtime, WildFly's 260 MB distribution and every plugin on each run. The file repository is added by a settings file;
 * since no local repository held this run's version before, {@code _remote.repositories} proves where
 * limiter-impl came from, and every {@code dev/ratelimiter/<artifact>/<version>} directory the builds made is
 * deleted afterwards, leaving {@code ~/.m2} as it was for this library.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReleaseIT {

    /** docs/servers.md's loop that applies the migrations by hand, in version order (today the one baseline). */
    private static final String MIGRATE_BY_HAND = "ls \"$RATELIMITER_CHECKOUT\"/migrations/postgres/V*.sql | sort -V "
            + "| while read -r file; do psql -q -v ON_ERROR_STOP=1 -f \"$file\" || exit 1; done";

    /** docs/servers.md's query of the counter table, which shows the keys hashed. */
    private static final String SELECT_ROWS = "psql -c 'select bucket, key from rate_limit_counters'";

    private static final List<String> PUBLISHED = List.of("ratelimiter-parent", "limiter-bom", "limiter-api",
            "limiter-impl", "limiter-store-valkey", "limiter-store-postgres");
    /** The published jars, each with the module name applications on the module path see. */
    private static final Map<String, String> MODULE_NAMES = Map.of("limiter-api", "dev.ratelimiter",
            "limiter-impl", "dev.ratelimiter.impl", "limiter-store-valkey", "dev.ratelimiter.store.valkey",
            "limiter-store-postgres", "dev.ratelimiter.store.postgres");
    /** What {@code ./mvnw install -DskipTests} must not need; the benchmark and the alert rules' tests use them. */
    private static final Set<String> HIDDEN = Set.of("redis-server", "redis-cli", "redis-benchmark", "initdb",
            "pg_ctl", "pgbench", "pgbouncer", "promtool", "wrk");
    /** The page's curl loop: a right password, three wrong ones, the right one again. */
    private static final List<String> PASSWORDS = List.of("wonderland", "wrong", "wrong", "wrong", "wonderland");
    /** The walkthroughs' curl loop, the one sh block of the page that logs in. */
    private static final Pattern LOOP = Pattern.compile("```sh\\n(for password in .*?)\\n```", Pattern.DOTALL);
    /** Every answer's: the global limit per address (the resource is under /api/), then the login bucket's. */
    private static final String POLICY = "\"api-anonymous\";q=120;w=60, \"login\";q=3;w=60";

    private final Path checkout = Path.of(System.getProperty("release.checkout")).toAbsolutePath().normalize();
    private final Path page = checkout.resolve("docs/servers.md");
    private final Path work = Path.of(System.getProperty("release.work"));
    private final Path userRepository = Path.of(System.getProperty("release.localRepository"));
    private final String version = System.getProperty("release.version").replace("-SNAPSHOT", "")
            + "-rt" + System.currentTimeMillis();
    private final Path repository = work.resolve("repository");
    private Path source;
    private Path hiddenPath;
    private Path gnupg;
    private SystemMaven maven;
    private final List<Path> apps = new ArrayList<>();
    private final List<Process> servers = new ArrayList<>();
    private final List<Path> libertyServers = new ArrayList<>();

    @BeforeAll
    void release() throws IOException {
        deleteTree(work);
        source = copyCheckout(work.resolve("source"));
        // A short path: gpg-agent's socket lives in the home directory, and socket paths are short.
        gnupg = Files.createTempDirectory("rl-gpg");
        assertThat(run(List.of("gpg", "--batch", "--homedir", gnupg.toString(), "--passphrase", "",
                "--quick-gen-key", "Release Test <release-test@example.invalid>", "ed25519", "sign", "never")))
                .as("a throwaway signing key").isZero();
        hiddenPath = PathWithout.create(work.resolve("path"), HIDDEN);
        Path log = work.resolve("release.log");
        int exit = MavenRun.wrapper(source.resolve("mvnw"), source, work.resolve("m2-release"),
                Map.of("PATH", hiddenPath.toString()), log, List.of(
                        "-Prelease", "deploy", "-DskipTests",
                        "-DaltDeploymentRepository=release-test::file:" + repository,
                        "-Dgpg.homedir=" + gnupg));
        assertThat(exit).as("./mvnw -Prelease deploy -DskipTests, log %s:\n%s", log, MavenRun.tail(log)).isZero();
    }

    @AfterAll
    void cleanUp() throws IOException {
        for (Process server : servers) {
            List<ProcessHandle> children = server.descendants().toList();
            // SIGTERM: Quarkus stops; liberty:run's shutdown hook stops its server, as Ctrl-C would; standalone.sh
            // passes it on to WildFly.
            server.destroy();
            try {
                if (!server.waitFor(2, TimeUnit.MINUTES)) {
                    server.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            // A JVM its script or Maven started and left running, as WildFly would be had the script been killed.
            children.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroy);
        }
        for (Path server : libertyServers) {
            if (Files.exists(server)) {
                // In case liberty:run did not stop it; "not running" is the expected answer.
                quietly(List.of(server.toString(), "stop", "defaultServer"));
            }
        }
        for (Path app : apps) {
            deleteTree(app);
        }
        deleteReleaseVersion(userRepository);
        if (gnupg != null) {
            quietly(List.of("gpgconf", "--homedir", gnupg.toString(), "--kill", "gpg-agent"));
            deleteTree(gnupg);
        }
    }

    @Test
    @DisplayName("the release deploys the parent, the BOM, the API, the implementation and the two store modules, "
            + "nothing else")
    void deploysThePublishedModulesOnly() throws IOException {
        for (String artifact : PUBLISHED) {
            assertThat(deployed(artifact, ".pom")).as(artifact).exists();
        }
        try (Stream<Path> artifacts = Files.list(repository.resolve("dev/ratelimiter"))) {
            assertThat(artifacts.map(artifact -> artifact.getFileName().toString()))
                    .as("not the example, the integration tests or the benchmarks")
                    .containsExactlyInAnyOrderElementsOf(PUBLISHED);
        }
    }

    @Test
    @DisplayName("-DskipTests needs a JDK and nothing else: the whole reactor builds without redis-server, initdb, "
            + "promtool or wrk on the PATH, and the benchmark's smoke pass does not run")
    void skipTestsNeedsNoServers() throws IOException {
        for (String program : HIDDEN) {
            assertThat(hiddenPath.resolve(program)).as("%s is off the release's PATH", program).doesNotExist();
        }
        assertThat(hiddenPath.resolve("java")).as("java is on it").exists();
        Path bench = source.resolve("limiter-bench/target");
        assertThat(bench.resolve("limiter-bench-" + version + ".jar")).as("the benchmarks were built").exists();
        assertThat(source.resolve("limiter-it/quarkus/target/quarkus-app/quarkus-run.jar"))
                .as("so were the integration tests' applications").exists();
        assertThat(bench.resolve("bench-smoke")).as("the smoke pass's output").doesNotExist();
        assertThat(bench.resolve("http")).as("Payara Micro, copied for the benchmark's HTTP section")
                .doesNotExist();
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
    @DisplayName("limiter-api, limiter-impl and the store modules come with sources, javadoc, a CycloneDX SBOM and a "
            + "module name")
    void releaseArtifacts() throws IOException {
        for (Map.Entry<String, String> module : MODULE_NAMES.entrySet()) {
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
        assertThat(bom.split("<artifactId>", -1)).as("artifactIds in the BOM: its own and the four modules")
                .hasSize(6);
        assertThat(bom).contains("<artifactId>limiter-api</artifactId>", "<artifactId>limiter-impl</artifactId>",
                        "<artifactId>limiter-store-valkey</artifactId>", "<artifactId>limiter-store-postgres</artifactId>")
                .doesNotContain("jedis", "postgresql", "HikariCP");
        for (String artifact : MODULE_NAMES.keySet()) {
            assertThat(Files.readString(deployed(artifact, ".pom"))).as(artifact).contains("<name>", "<description>");
        }
    }

    @Test
    @DisplayName("the new Quarkus application of docs/servers.md, built with the system Maven, gets the library from "
            + "the release alone and answers the page's JSON logins 200 401 401 401 429 Too Many Requests")
    void newQuarkusApplication() throws IOException {
        String start = "java -Dquarkus.http.port=8081 -jar target/quarkus-app/quarkus-run.jar";
        assertPageShows("mvn package", start, "`HTTP/1.1 429 Too Many Requests`");
        int port = freePort();
        Path app = writeApplication("quarkus-app", Map.of());
        Path log = work.resolve("quarkus-app.log");
        int exit = MavenRun.run(mvn(app, List.of("package")), app, Map.of(), log);
        assertThat(exit).as("mvn package, log %s:\n%s", log, MavenRun.tail(log)).isZero();
        assertFromRelease();
        assertThat(jarNames(app.resolve("target/quarkus-app/lib/main"))).as("what the library brings")
                .anyMatch(name -> name.startsWith("dev.ratelimiter.limiter-impl-"))
                .anyMatch(name -> name.startsWith("dev.ratelimiter.limiter-api-"))
                .anyMatch(name -> name.startsWith("com.github.seancfoley.ipaddress-"))
                .as("no store module, no store client").noneMatch(name -> name.contains("limiter-store-")
                        || name.startsWith("redis.clients.") || name.startsWith("org.postgresql."));
        List<String> command = new ArrayList<>(List.of(start.replace("8081", String.valueOf(port)).split(" ")));
        command.set(0, javaExecutable());
        Path runLog = work.resolve("quarkus-app-run.log");
        Process server = MavenRun.start(command, app, Map.of(), runLog);
        servers.add(server);
        assertLogins(port, "/q/health/ready", server, runLog, Duration.ofMinutes(2), "429 Too Many Requests");
    }

    @Test
    @DisplayName("the Quarkus application counting in Valkey, as docs/servers.md#counting-in-valkey-or-redis adds "
            + "it, answers the page's logins 200 401 401 401 429 from counters in Valkey whose keys are HMACs")
    void newQuarkusApplicationOnValkey() throws IOException {
        String start = "java -jar target/quarkus-app/quarkus-run.jar";
        assertPageShows("export RATE_LIMIT_KEY_SECRET=", "redis-cli --scan --pattern 'rl:*'",
                "`Rate limiter ready: backend valkey, 3 buckets`", "`\"backend\": \"valkey\"` and `\"state\": \"ok\"`");
        int redisPort = freePort();
        Process redis = MavenRun.start(List.of("redis-server", "--port", String.valueOf(redisPort), "--bind",
                "127.0.0.1", "--save", "", "--appendonly", "no"), work, Map.of(), work.resolve("redis.log"));
        servers.add(redis);
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                .until(() -> redisCli(redisPort, "ping").equals("PONG"));
        Path app = writeApplication("quarkus-app", Map.of());
        Map<String, String> additions = PageFiles.additions(page, "quarkus-app");
        assertThat(additions).as("the page's additions").containsOnlyKeys("pom.xml",
                "src/main/resources/application.properties");
        PageFiles.add(app, additions);
        Path log = work.resolve("quarkus-valkey-app.log");
        int exit = MavenRun.run(mvn(app, List.of("package")), app, Map.of(), log);
        assertThat(exit).as("mvn package, log %s:\n%s", log, MavenRun.tail(log)).isZero();
        assertFromRelease("limiter-store-valkey");
        assertThat(jarNames(app.resolve("target/quarkus-app/lib/main"))).as("the module the page adds, with its client")
                .anyMatch(name -> name.startsWith("dev.ratelimiter.limiter-store-valkey-"))
                .anyMatch(name -> name.startsWith("redis.clients.jedis-"));
        int port = freePort();
        List<String> command = new ArrayList<>(List.of(start.split(" ")));
        command.set(0, javaExecutable());
        command.add(1, "-Dquarkus.http.port=" + port);
        Path runLog = work.resolve("quarkus-valkey-app-run.log");
        // The page's URL names the default port; this run's Valkey is on a port of its own.
        Process server = MavenRun.start(command, app, Map.of("RATELIMITER_VALKEY_URL",
                "redis://127.0.0.1:" + redisPort, "RATE_LIMIT_KEY_SECRET", "release-test-secret"), runLog);
        servers.add(server);
        assertLogins(port, "/q/health/ready", server, runLog, Duration.ofMinutes(2), "429 Too Many Requests");
        assertThat(JsonLogin.body(URI.create("http://127.0.0.1:" + port + "/q/health/ready")))
                .contains("\"backend\": \"valkey\"", "\"state\": \"ok\"");
        assertThat(Files.readString(runLog)).contains("Rate limiter ready: backend valkey, 3 buckets");
        List<String> keys = redisCli(redisPort, "--scan", "--pattern", "rl:*").lines().toList();
        assertThat(keys).as("Valkey's keys").allMatch(key -> key.matches("rl:\\{[a-z-]+:[A-Za-z0-9_-]{43}}"))
                .anyMatch(key -> key.startsWith("rl:{login:")).anyMatch(key -> key.startsWith("rl:{api-anonymous:"))
                .noneMatch(key -> key.contains("alice") || key.contains("carol") || key.contains("127.0.0.1"));
    }

    @Test
    @DisplayName("the new Open Liberty application of docs/servers.md, built and run with the system Maven, gets the "
            + "library from the release alone and answers the page's JSON logins 200 401 401 401 429 Undefined")
    void newLibertyApplication() throws IOException {
        String run = "mvn -Dliberty.var.http.port=9081 package liberty:run";
        assertPageShows(run, "`HTTP/1.1 429 Undefined`");
        int port = freePort();
        Path app = writeApplication("liberty-app", quarkusClasses());
        libertyServers.add(app.resolve("target/liberty/wlp/bin/server"));
        List<String> args = List.of(run.replace("9081", String.valueOf(port)).split(" "));
        Path log = work.resolve("liberty-app.log");
        Process server = MavenRun.start(mvn(app, args.subList(1, args.size())), app, Map.of(), log);
        servers.add(server);
        // The build runs first, so readiness waits for it too.
        assertLogins(port, "/health/ready", server, log, Duration.ofMinutes(5), "429 Undefined");
        assertFromRelease();
        assertThat(jarNames(app.resolve("target/shop/WEB-INF/lib"))).as("what the library brings")
                .anyMatch(name -> name.startsWith("limiter-impl-"))
                .anyMatch(name -> name.startsWith("limiter-api-"))
                .anyMatch(name -> name.startsWith("ipaddress-"))
                .as("no store module, no store client").noneMatch(name -> name.startsWith("limiter-store-")
                        || name.startsWith("jedis-") || name.startsWith("postgresql-"));
    }

    @Test
    @DisplayName("the Open Liberty application counting in PostgreSQL, as docs/servers.md#counting-in-postgresql adds "
            + "it, answers the page's logins 200 401 401 401 429 from rows whose keys are HMACs")
    void newLibertyApplicationOnPostgres() throws IOException {
        assertPageShows(MIGRATE_BY_HAND, SELECT_ROWS, "mvn package liberty:run",
                "`Rate limiter ready: backend postgres, 3 buckets`", "`\"backend\":\"postgres\"` and `\"state\":\"ok\"`");
        try (PageDatabase database = new PageDatabase()) {
            TestServers.Postgres postgres = database.postgres;
            String schema = database.schema;
            Path app = writeApplication("liberty-app", quarkusClasses());
            Map<String, String> additions = PageFiles.additions(page, "liberty-app");
            assertThat(additions).as("the page's additions").containsOnlyKeys("pom.xml",
                    "src/main/resources/META-INF/microprofile-config.properties");
            PageFiles.add(app, additions);
            libertyServers.add(app.resolve("target/liberty/wlp/bin/server"));
            int port = freePort();
            Map<String, String> environment = new LinkedHashMap<>(Map.of(
                    "RATELIMITER_POSTGRES_URL", postgres.url(), "RATELIMITER_POSTGRES_USER", postgres.user(),
                    "RATELIMITER_POSTGRES_TABLE", schema + ".rate_limit_counters",
                    "RATE_LIMIT_KEY_SECRET", "release-test-secret"));
            if (!postgres.password().isEmpty()) {
                environment.put("RATELIMITER_POSTGRES_PASSWORD", postgres.password());
            }
            Path log = work.resolve("liberty-postgres-app.log");
            Process server = MavenRun.start(mvn(app, List.of("-Dliberty.var.http.port=" + port, "package",
                    "liberty:run")), app, environment, log);
            servers.add(server);
            assertLogins(port, "/health/ready", server, log, Duration.ofMinutes(5), "429 Undefined");
            assertFromRelease("limiter-store-postgres");
            assertThat(jarNames(app.resolve("target/shop/WEB-INF/lib"))).as("the module the page adds, with its client")
                    .anyMatch(name -> name.startsWith("limiter-store-postgres-"))
                    .anyMatch(name -> name.startsWith("postgresql-"));
            assertThat(JsonLogin.body(URI.create("http://127.0.0.1:" + port + "/health/ready")).replace(" ", ""))
                    .contains("\"backend\":\"postgres\"", "\"state\":\"ok\"");
            assertThat(Files.readString(app.resolve("target/liberty/wlp/usr/servers/defaultServer/logs/messages.log")))
                    .contains("Rate limiter ready: backend postgres, 3 buckets");
            database.assertRowsHashed();
        }
    }

    @Test
    @DisplayName("the new WildFly application of docs/servers.md, built with the system Maven on WildFly's distribution "
            + "from Maven Central, gets the library from the release alone, answers the page's JSON logins "
            + "200 401 401 401 429 Too Many Requests and is ready on the management interface")
    void newWildFlyApplication() throws IOException {
        String start = "target/wildfly-39.0.1.Final/bin/standalone.sh -c standalone-microprofile.xml "
                + "-Djboss.socket.binding.port-offset=1";
        String readiness = "curl -s http://localhost:9990/health/ready";
        assertPageShows("mvn package", start, readiness, "`HTTP/1.1 429 Too Many Requests`",
                "`Rate limiter ready: backend memory, 3 buckets`", "`\"backend\":\"memory\"` and `\"state\":\"ok\"`");
        Path app = writeApplication("wildfly-app", quarkusClasses());
        Path log = work.resolve("wildfly-app.log");
        int exit = MavenRun.run(mvn(app, List.of("package")), app, Map.of(), log);
        assertThat(exit).as("mvn package, log %s:\n%s", log, MavenRun.tail(log)).isZero();
        assertFromRelease();
        assertThat(app.resolve("target/wildfly-39.0.1.Final/standalone/deployments/ROOT.war")).as("the WAR, deployed")
                .exists();
        assertThat(jarNames(app.resolve("target/ROOT/WEB-INF/lib"))).as("what the library brings")
                .anyMatch(name -> name.startsWith("limiter-impl-"))
                .anyMatch(name -> name.startsWith("limiter-api-"))
                .anyMatch(name -> name.startsWith("ipaddress-"))
                .as("no store module, no store client").noneMatch(name -> name.startsWith("limiter-store-")
                        || name.startsWith("jedis-") || name.startsWith("postgresql-"));
        int offset = freeWildFlyPortOffset();
        Path runLog = work.resolve("wildfly-app-run.log");
        Process server = startWildFly(app, start, offset, Map.of(), runLog);
        int management = 9990 + offset;
        assertLogins(8080 + offset, URI.create("http://127.0.0.1:" + management + "/health/ready"), server, runLog,
                Duration.ofMinutes(3), "429 Too Many Requests");
        assertThat(bash(readiness.replace(":9990/", ":" + management + "/"), Map.of()).replace(" ", ""))
                .as("the page's readiness").contains("\"status\":\"UP\"", "\"name\":\"rate-limiter\"",
                        "\"backend\":\"memory\"", "\"state\":\"ok\"");
        assertThat(Files.readString(runLog)).contains("Rate limiter ready: backend memory, 3 buckets",
                "Deployed \"ROOT.war\"");
    }

    @Test
    @DisplayName("the WildFly application counting in PostgreSQL, as "
            + "docs/servers.md#counting-in-postgresql-through-a-wildfly-datasource adds it, through the page's jta=false "
            + "datasource, answers the page's logins 200 401 401 401 429 from rows whose keys are HMACs")
    void newWildFlyApplicationOnPostgres() throws IOException {
        String script = "target/wildfly-39.0.1.Final/bin/jboss-cli.sh --file=datasource.cli";
        String start = "target/wildfly-39.0.1.Final/bin/standalone.sh -c standalone-microprofile.xml";
        String pageUrl = "--connection-url=jdbc:postgresql://127.0.0.1:5432/shop --user-name=postgres";
        assertPageShows(MIGRATE_BY_HAND, "mvn package\n" + script + "\nexport RATE_LIMIT_KEY_SECRET=", start,
                "`Rate limiter ready: backend postgres, 3 buckets`", "`\"backend\":\"postgres\"` and `\"state\":\"ok\"`");
        try (PageDatabase database = new PageDatabase()) {
            TestServers.Postgres postgres = database.postgres;
            String schema = database.schema;
            Path app = writeApplication("wildfly-app", quarkusClasses());
            Map<String, String> additions = PageFiles.additions(page, "wildfly-app");
            assertThat(additions).as("the page's additions").containsOnlyKeys("pom.xml",
                    "src/main/resources/META-INF/microprofile-config.properties", "datasource.cli");
            PageFiles.add(app, additions);
            // The page's database is the tests' server here, its user the tests' own.
            Path cli = app.resolve("datasource.cli");
            String pageScript = Files.readString(cli);
            assertThat(pageScript).contains(pageUrl);
            Files.writeString(cli, pageScript.replace(pageUrl, "--connection-url=" + postgres.url() + " --user-name="
                    + postgres.user() + (postgres.password().isEmpty() ? "" : " --password=" + postgres.password())));
            Path log = work.resolve("wildfly-postgres-app.log");
            int exit = MavenRun.run(mvn(app, List.of("package")), app, Map.of(), log);
            assertThat(exit).as("mvn package, log %s:\n%s", log, MavenRun.tail(log)).isZero();
            assertFromRelease("limiter-store-postgres");
            assertThat(jarNames(app.resolve("target/ROOT/WEB-INF/lib"))).as("the module the page adds, with the "
                            + "driver the page's script deploys, in the version it names")
                    .anyMatch(name -> name.startsWith("limiter-store-postgres-"))
                    .anyMatch(name -> pageScript.contains("target/ROOT/WEB-INF/lib/" + name + " "));
            Path scriptLog = work.resolve("wildfly-postgres-cli.log");
            List<String> scriptCommand = new ArrayList<>(List.of(script.split(" ")));
            scriptCommand.set(0, app.resolve(scriptCommand.get(0)).toString());
            assertThat(MavenRun.run(scriptCommand, app, Map.of("JAVA_HOME", System.getProperty("java.home")),
                    scriptLog)).as("the page's script, log %s:\n%s", scriptLog, MavenRun.tail(scriptLog)).isZero();
            int offset = freeWildFlyPortOffset();
            Path runLog = work.resolve("wildfly-postgres-app-run.log");
            Process server = startWildFly(app, start + " -Djboss.socket.binding.port-offset=" + offset, offset,
                    Map.of("RATE_LIMIT_KEY_SECRET", "release-test-secret",
                            "RATELIMITER_POSTGRES_TABLE", schema + ".rate_limit_counters"), runLog);
            URI ready = URI.create("http://127.0.0.1:" + (9990 + offset) + "/health/ready");
            assertLogins(8080 + offset, ready, server, runLog, Duration.ofMinutes(3), "429 Too Many Requests");
            assertThat(JsonLogin.body(ready).replace(" ", "")).contains("\"backend\":\"postgres\"", "\"state\":\"ok\"");
            assertThat(Files.readString(runLog)).contains("Rate limiter ready: backend postgres, 3 buckets");
            database.assertRowsHashed();
        }
    }

    /**
     * The page's database of its own, stood for by a new schema of the tests' PostgreSQL, made and migrated with the
     * page's loop ({@link #MIGRATE_BY_HAND}) at once; {@link #close()} drops it.
     */
    private final class PageDatabase implements AutoCloseable {

        final TestServers.Postgres postgres = TestServers.postgres();
        final String schema = "release_" + Long.toString(System.nanoTime(), 36);
        /** psql's own variables, as the page exports them, for the tests' server, in the schema. */
        private final Map<String, String> psql = new LinkedHashMap<>(psqlEnvironment(postgres));

        PageDatabase() throws IOException {
            assertThat(bash("psql -q -v ON_ERROR_STOP=1 -c 'create schema " + schema + "'", psql)).isEmpty();
            psql.put("PGOPTIONS", "-c search_path=" + schema);
            Map<String, String> migration = new LinkedHashMap<>(psql);
            migration.put("RATELIMITER_CHECKOUT", checkout.toString());
            try {
                assertThat(bash(MIGRATE_BY_HAND, migration)).as("the page's migration loop prints nothing").isEmpty();
            } catch (IOException | RuntimeException | AssertionError e) {
                close();
                throw e;
            }
        }

        /** The page's query of the counters: rows of a bucket and a key hashed, none holding a login or address. */
        void assertRowsHashed() throws IOException {
            List<String> rows = bash(SELECT_ROWS + " --tuples-only --no-align", psql).lines().toList();
            assertThat(rows).as("the table's rows, bucket|key").isNotEmpty()
                    .allMatch(row -> row.matches("[a-z-]+\\|[A-Za-z0-9_-]{43}"))
                    .anyMatch(row -> row.startsWith("login|")).anyMatch(row -> row.startsWith("api-anonymous|"))
                    .noneMatch(row -> row.contains("alice") || row.contains("carol") || row.contains("127.0.0.1"));
        }

        @Override
        public void close() throws IOException {
            Map<String, String> outside = new LinkedHashMap<>(psql);
            outside.remove("PGOPTIONS");
            bash("psql -q -c 'drop schema " + schema + " cascade'", outside);
        }
    }

    /**
     * Starts WildFly in {@code app} with the page's {@code start} command, its port offset made {@code offset},
     * {@code environment} added; the clean-up stops it.
     */
    private Process startWildFly(Path app, String start, int offset, Map<String, String> environment, Path log) {
        List<String> command = new ArrayList<>(List.of(start.replaceAll("port-offset=\\d+", "port-offset=" + offset)
                .split(" ")));
        command.set(0, app.resolve(command.get(0)).toString());
        Map<String, String> all = new LinkedHashMap<>(environment);
        // LAUNCH_JBOSS_IN_BACKGROUND: standalone.sh passes the clean-up's SIGTERM on to WildFly, as Ctrl-C reaches it
        // in a terminal; JAVA_HOME: WildFly runs on this test's JDK.
        all.put("LAUNCH_JBOSS_IN_BACKGROUND", "true");
        all.put("JAVA_HOME", System.getProperty("java.home"));
        Process server = MavenRun.start(command, app, all, log);
        servers.add(server);
        return server;
    }

    /** The Quarkus application's four classes on the page, which the Open Liberty one shares. */
    private Map<String, String> quarkusClasses() {
        Map<String, String> classes = new LinkedHashMap<>();
        PageFiles.of(page, "quarkus-app").forEach((path, text) -> {
            if (path.startsWith("src/main/java/")) {
                classes.put(path, text);
            }
        });
        assertThat(classes).as("the Quarkus application's classes, which the Liberty one shares").hasSize(4);
        return classes;
    }

    /** {@code PGHOST}, {@code PGPORT}, {@code PGDATABASE}, {@code PGUSER} and {@code PGPASSWORD} of a server. */
    private static Map<String, String> psqlEnvironment(TestServers.Postgres postgres) {
        URI url = URI.create(postgres.url().substring("jdbc:".length()));
        Map<String, String> environment = new LinkedHashMap<>(Map.of("PGHOST", url.getHost(),
                "PGPORT", String.valueOf(url.getPort() < 0 ? 5432 : url.getPort()),
                "PGDATABASE", url.getPath().substring(1), "PGUSER", postgres.user()));
        if (!postgres.password().isEmpty()) {
            environment.put("PGPASSWORD", postgres.password());
        }
        return environment;
    }

    /**
     * What {@code bash -c command} prints (standard error too), stripped, with {@code environment} added to this
     * process's.
     *
     * @throws AssertionError if it exits with another status than 0
     */
    private static String bash(String command, Map<String, String> environment) throws IOException {
        ProcessBuilder builder = new ProcessBuilder("bash", "-c", command).redirectErrorStream(true);
        builder.environment().putAll(environment);
        Process process = builder.start();
        String printed = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        try {
            assertThat(process.waitFor()).as("bash -c %s:\n%s", command, printed).isZero();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return printed;
    }

    /** The page says what the test does: each snippet is on docs/servers.md verbatim. */
    private void assertPageShows(String... snippets) throws IOException {
        String text = Files.readString(page);
        String loop = "for password in " + String.join(" ", PASSWORDS) + "; do";
        assertThat(text).as("docs/servers.md").contains(snippets)
                .contains(loop, "prints `200 401 401 401 429`", "`RateLimit-Policy: " + POLICY + "`");
    }

    /**
     * Writes docs/servers.md's {@code application} (with {@code extraFiles}) into a new directory outside the
     * checkout, with this run's version of the library in place of the page's (the project's).
     */
    private Path writeApplication(String application, Map<String, String> extraFiles) throws IOException {
        Map<String, String> files = PageFiles.of(page, application);
        assertThat(files).containsKey("pom.xml");
        String pageVersion = "<ratelimiter.version>" + System.getProperty("release.version") + "<";
        assertThat(files.get("pom.xml")).as("the page's version is the project's").contains(pageVersion);
        Path app = Files.createTempDirectory("rl-" + application);
        apps.add(app);
        PageFiles.write(app, files);
        PageFiles.write(app, extraFiles);
        Path pom = app.resolve("pom.xml");
        Files.writeString(pom, Files.readString(pom).replace(pageVersion, "<ratelimiter.version>" + version + "<"));
        return app;
    }

    /**
     * The system Maven's command line for {@code args} in {@code app}: the user's local repository, and the
     * release's file repository added by a settings file in the application's directory.
     */
    private List<String> mvn(Path app, List<String> args) throws IOException {
        if (maven == null) {
            maven = SystemMaven.onPath();
            System.out.println("The walkthroughs' Maven, mvn --version:\n" + maven.version());
        }
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
        List<String> all = new ArrayList<>(List.of("-s", settings.toString(), "-Dmaven.repo.local=" + userRepository));
        all.addAll(args);
        return maven.command(all);
    }

    /** limiter-impl reached the user's local repository from the release's file repository. */
    private void assertFromRelease() throws IOException {
        assertFromRelease("limiter-impl");
    }

    /** {@code artifact} reached the user's local repository from the release's file repository. */
    private void assertFromRelease(String artifact) throws IOException {
        assertThat(Files.readString(userRepository.resolve("dev/ratelimiter/" + artifact + "/" + version
                + "/_remote.repositories"))).as("%s came from the release's repository", artifact)
                .contains(">release-test=");
    }

    /**
     * Waits for the application on {@code port} to be ready, failing at once if {@code server} exits, then sends
     * the page's logins: the success clears alice's count, three failures fill the login bucket (3 a minute), and
     * the fourth attempt is refused with {@code refusal}, right password or not.
     */
    /**
     * Waits for readiness, then runs the page's own curl loop (docs/servers.md#a-new-quarkus-application) with bash
     * against {@code port}, as the reader does, and checks that it prints what the page says; then, for the reason
     * phrase and the headers the page names, four wrong logins of another account through {@link JsonLogin}.
     */
    private void assertLogins(int port, String readiness, Process server, Path log, Duration within,
                              String refusal) throws IOException {
        assertLogins(port, URI.create("http://127.0.0.1:" + port + readiness), server, log, within, refusal);
    }

    /** As above, with readiness at {@code readiness}, on another port than the application's (WildFly's 9990). */
    private void assertLogins(int port, URI readiness, Process server, Path log, Duration within, String refusal)
            throws IOException {
        String base = "http://127.0.0.1:" + port;
        await().atMost(within).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                .failFast(() -> assertThat(server.isAlive())
                        .as(() -> "the application exited, log " + log + ":\n" + MavenRun.tail(log)).isTrue())
                .until(() -> JsonLogin.status(readiness).equals("200 OK"));
        Matcher loop = LOOP.matcher(Files.readString(page));
        assertThat(loop.find()).as("docs/servers.md shows the curl loop").isTrue();
        String command = loop.group(1).replaceAll("http://localhost:\\d+/", base + "/");
        Process curl = new ProcessBuilder("bash", "-c", command).redirectErrorStream(true).start();
        String printed = new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(printed.strip()).as("the page's curl loop: %s", command).isEqualTo("200 401 401 401 429");
        List<String> answers = PASSWORDS.subList(1, PASSWORDS.size()).stream()
                .map(password -> JsonLogin.attempt(base, "carol", "not-" + password)).toList();
        assertThat(answers).containsExactly("401 Unauthorized; " + POLICY, "401 Unauthorized; " + POLICY,
                "401 Unauthorized; " + POLICY, refusal + "; " + POLICY);
    }

    private static List<String> jarNames(Path directory) {
        try (Stream<Path> jars = Files.list(directory)) {
            return jars.map(jar -> jar.getFileName().toString()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
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
     * Copies the checkout as a release builds it, every module, without .git and the build's output, with this
     * run's version in place of the checkout's in every pom.
     */
    private Path copyCheckout(Path target) throws IOException {
        String checkoutVersion = System.getProperty("release.version");
        Files.walkFileTree(checkout, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path directory, BasicFileAttributes attributes) {
                String name = directory.getFileName().toString();
                return name.equals(".git") || name.equals("target")
                        ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                if (!attributes.isRegularFile() || file.getFileName().toString().equals(".git")) {
                    return FileVisitResult.CONTINUE; // a worktree's .git is a file
                }
                Path copy = target.resolve(checkout.relativize(file).toString());
                Files.createDirectories(copy.getParent());
                if (file.getFileName().toString().equals("pom.xml")) {
                    Files.writeString(copy, Files.readString(file).replace(checkoutVersion, version));
                } else {
                    Files.copy(file, copy, StandardCopyOption.COPY_ATTRIBUTES); // mvnw stays executable
                }
                return FileVisitResult.CONTINUE;
            }
        });
        return target;
    }

    /** Deletes this run's version of every artifact of the library from {@code localRepository}. */
    private void deleteReleaseVersion(Path localRepository) throws IOException {
        Path library = localRepository.resolve("dev/ratelimiter");
        if (!Files.isDirectory(library)) {
            return;
        }
        try (Stream<Path> artifacts = Files.list(library)) {
            for (Path artifact : artifacts.toList()) {
                deleteTree(artifact.resolve(version));
            }
        }
    }

    /** What {@code redis-cli -p <port> args} prints, stripped. */
    private static String redisCli(int port, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of("redis-cli", "-p", String.valueOf(port)));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
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

    /** Runs a clean-up command whose failure changes nothing (such as stopping what already stopped). */
    private static void quietly(List<String> command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!process.waitFor(2, TimeUnit.MINUTES)) {
                process.destroyForcibly();
            }
        } catch (IOException e) {
            System.err.println(command + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /**
     * An offset at which WildFly's four ports (HTTP 8080, HTTPS 8443, management 9990 and 9993, each plus the
     * offset) are free.
     *
     * @throws IllegalStateException if 20 tries found none
     */
    private static int freeWildFlyPortOffset() throws IOException {
        for (int attempt = 0; attempt < 20; attempt++) {
            int offset = freePort() - 8080;
            if (offset > 0 && 9993 + offset < 65536 && free(8443 + offset) && free(9990 + offset)
                    && free(9993 + offset)) {
                return offset;
            }
        }
        throw new IllegalStateException("no port offset with WildFly's four ports free in 20 tries");
    }

    private static boolean free(int port) {
        try (ServerSocket socket = new ServerSocket(port)) {
            return true;
        } catch (IOException e) {
            return false;
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
