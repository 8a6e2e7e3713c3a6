package dev.ratelimiter.it.release;

import dev.ratelimiter.testing.TestServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The walkthroughs of docs/servers.md#a-new-quarkus-application, docs/servers.md#a-new-open-liberty-application and
 * docs/servers.md#a-new-wildfly-application, as a new user follows them, on the one {@link Release} of the test JVM
 * (which {@link ReleaseIT} checks): the three applications, their files taken from docs/servers.md, are built with
 * the system Maven ({@link SystemMaven}) against the release's file repository, started with the page's commands,
 * and sent the page's JSON logins until the 429; and the Quarkus one again with the page's additions for Valkey
 * (docs/servers.md#counting-in-valkey-or-redis), counting in a {@code redis-server} of the test's own, and the Open
 * Liberty one with the page's additions for PostgreSQL (docs/servers.md#counting-in-postgresql), its table made by
 * the page's psql loop in a schema of the test's own on the tests' PostgreSQL ({@link TestServers#postgres()}), and
 * the WildFly one likewise, through the jta=false datasource the page's jboss-cli script declares
 * (docs/servers.md#counting-in-postgresql-through-a-wildfly-datasource). WildFly starts with the page's command at a
 * port offset whose four ports are free.
 *
 * <p>The applications build as the reader's do, with the user's local repository ({@code settings.localRepository}
 * of this build): Maven 3.8 has no {@code maven.repo.local.tail}, and a repository of their own would download
 * Quarkus, Liberty's 350 MB runtime, WildFly's 260 MB distribution and every plugin on each run. The file repository
 * is added by a settings file; since no local repository held this run's version before, {@code
 * _remote.repositories} proves where limiter-impl came from, and closing the {@link Release} deletes every {@code
 * dev/ratelimiter/<artifact>/<version>} directory the builds made, leaving {@code ~/.m2} as it was for this library.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(Release.Resolver.class)
class WalkthroughIT {

    private Release release;
    private PageLogins page;
    private Path pagePath;
    private Path work;
    private Path userRepository;
    private SystemMaven maven;
    private final List<Path> apps = new ArrayList<>();
    private final List<Process> servers = new ArrayList<>();
    private final List<Path> libertyServers = new ArrayList<>();

    @BeforeAll
    void release(Release release) {
        this.release = release;
        pagePath = release.checkout.resolve("docs/servers.md");
        page = new PageLogins(pagePath);
        work = release.work;
        userRepository = release.userRepository;
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
                Release.quietly(List.of(server.toString(), "stop", "defaultServer"));
            }
        }
        for (Path app : apps) {
            Release.deleteTree(app);
        }
    }

    @Test
    @DisplayName("the new Quarkus application of docs/servers.md, built with the system Maven, gets the library from "
            + "the release alone and answers the page's JSON logins 200 401 401 401 429 Too Many Requests")
    void newQuarkusApplication() throws IOException {
        String start = "java -Dquarkus.http.port=8081 -jar target/quarkus-app/quarkus-run.jar";
        page.assertShows("mvn package", start, "`HTTP/1.1 429 Too Many Requests`");
        int port = Ports.freePort();
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
        page.assertLogins(port, "/q/health/ready", server, runLog, Duration.ofMinutes(2), "429 Too Many Requests");
    }

    @Test
    @DisplayName("the Quarkus application counting in Valkey, as docs/servers.md#counting-in-valkey-or-redis adds "
            + "it, answers the page's logins 200 401 401 401 429 from counters in Valkey whose keys are HMACs")
    void newQuarkusApplicationOnValkey() throws IOException {
        String start = "java -jar target/quarkus-app/quarkus-run.jar";
        page.assertShows("export RATE_LIMIT_KEY_SECRET=", "redis-cli --scan --pattern 'rl:*'",
                "`Rate limiter ready: backend valkey, 3 buckets`", "`\"backend\": \"valkey\"` and `\"state\": \"ok\"`");
        int redisPort = Ports.freePort();
        Process redis = MavenRun.start(List.of("redis-server", "--port", String.valueOf(redisPort), "--bind",
                "127.0.0.1", "--save", "", "--appendonly", "no"), work, Map.of(), work.resolve("redis.log"));
        servers.add(redis);
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                .until(() -> Shell.redisCli(redisPort, "ping").equals("PONG"));
        Path app = writeApplication("quarkus-app", Map.of());
        Map<String, String> additions = PageFiles.additions(pagePath, "quarkus-app");
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
        int port = Ports.freePort();
        List<String> command = new ArrayList<>(List.of(start.split(" ")));
        command.set(0, javaExecutable());
        command.add(1, "-Dquarkus.http.port=" + port);
        Path runLog = work.resolve("quarkus-valkey-app-run.log");
        // The page's URL names the default port; this run's Valkey is on a port of its own.
        Process server = MavenRun.start(command, app, Map.of("RATELIMITER_VALKEY_URL",
                "redis://127.0.0.1:" + redisPort, "RATE_LIMIT_KEY_SECRET", "release-test-secret"), runLog);
        servers.add(server);
        page.assertLogins(port, "/q/health/ready", server, runLog, Duration.ofMinutes(2), "429 Too Many Requests");
        assertThat(JsonLogin.body(URI.create("http://127.0.0.1:" + port + "/q/health/ready")))
                .contains("\"backend\": \"valkey\"", "\"state\": \"ok\"");
        assertThat(Files.readString(runLog)).contains("Rate limiter ready: backend valkey, 3 buckets");
        List<String> keys = Shell.redisCli(redisPort, "--scan", "--pattern", "rl:*").lines().toList();
        assertThat(keys).as("Valkey's keys").allMatch(key -> key.matches("rl:\\{[a-z-]+:[A-Za-z0-9_-]{43}}"))
                .anyMatch(key -> key.startsWith("rl:{login:")).anyMatch(key -> key.startsWith("rl:{api-anonymous:"))
                .noneMatch(key -> key.contains("alice") || key.contains("carol") || key.contains("127.0.0.1"));
    }

    @Test
    @DisplayName("the new Open Liberty application of docs/servers.md, built and run with the system Maven, gets the "
            + "library from the release alone and answers the page's JSON logins 200 401 401 401 429 Undefined")
    void newLibertyApplication() throws IOException {
        String run = "mvn -Dliberty.var.http.port=9081 package liberty:run";
        page.assertShows(run, "`HTTP/1.1 429 Undefined`");
        int port = Ports.freePort();
        Path app = writeApplication("liberty-app", quarkusClasses());
        libertyServers.add(app.resolve("target/liberty/wlp/bin/server"));
        List<String> args = List.of(run.replace("9081", String.valueOf(port)).split(" "));
        Path log = work.resolve("liberty-app.log");
        Process server = MavenRun.start(mvn(app, args.subList(1, args.size())), app, Map.of(), log);
        servers.add(server);
        // The build runs first, so readiness waits for it too.
        page.assertLogins(port, "/health/ready", server, log, Duration.ofMinutes(5), "429 Undefined");
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
        page.assertShows(PageDatabase.MIGRATE_BY_HAND, PageDatabase.SELECT_ROWS, "mvn package liberty:run",
                "`Rate limiter ready: backend postgres, 3 buckets`",
                "`\"backend\":\"postgres\"` and `\"state\":\"ok\"`");
        try (PageDatabase database = new PageDatabase(release.checkout)) {
            TestServers.Postgres postgres = database.postgres;
            String schema = database.schema;
            Path app = writeApplication("liberty-app", quarkusClasses());
            Map<String, String> additions = PageFiles.additions(pagePath, "liberty-app");
            assertThat(additions).as("the page's additions").containsOnlyKeys("pom.xml",
                    "src/main/resources/META-INF/microprofile-config.properties");
            PageFiles.add(app, additions);
            libertyServers.add(app.resolve("target/liberty/wlp/bin/server"));
            int port = Ports.freePort();
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
            page.assertLogins(port, "/health/ready", server, log, Duration.ofMinutes(5), "429 Undefined");
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
        page.assertShows("mvn package", start, readiness, "`HTTP/1.1 429 Too Many Requests`",
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
        int offset = Ports.freeWildFlyPortOffset();
        Path runLog = work.resolve("wildfly-app-run.log");
        Process server = startWildFly(app, start, offset, Map.of(), runLog);
        int management = 9990 + offset;
        page.assertLogins(8080 + offset, URI.create("http://127.0.0.1:" + management + "/health/ready"), server, runLog,
                Duration.ofMinutes(3), "429 Too Many Requests");
        assertThat(Shell.bash(readiness.replace(":9990/", ":" + management + "/"), Map.of()).replace(" ", ""))
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
        page.assertShows(PageDatabase.MIGRATE_BY_HAND, "mvn package\n" + script + "\nexport RATE_LIMIT_KEY_SECRET=",
                start, "`Rate limiter ready: backend postgres, 3 buckets`",
                "`\"backend\":\"postgres\"` and `\"state\":\"ok\"`");
        try (PageDatabase database = new PageDatabase(release.checkout)) {
            TestServers.Postgres postgres = database.postgres;
            String schema = database.schema;
            Path app = writeApplication("wildfly-app", quarkusClasses());
            Map<String, String> additions = PageFiles.additions(pagePath, "wildfly-app");
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
            int offset = Ports.freeWildFlyPortOffset();
            Path runLog = work.resolve("wildfly-postgres-app-run.log");
            Process server = startWildFly(app, start + " -Djboss.socket.binding.port-offset=" + offset, offset,
                    Map.of("RATE_LIMIT_KEY_SECRET", "release-test-secret",
                            "RATELIMITER_POSTGRES_TABLE", schema + ".rate_limit_counters"), runLog);
            URI ready = URI.create("http://127.0.0.1:" + (9990 + offset) + "/health/ready");
            page.assertLogins(8080 + offset, ready, server, runLog, Duration.ofMinutes(3), "429 Too Many Requests");
            assertThat(JsonLogin.body(ready).replace(" ", "")).contains("\"backend\":\"postgres\"", "\"state\":\"ok\"");
            assertThat(Files.readString(runLog)).contains("Rate limiter ready: backend postgres, 3 buckets");
            database.assertRowsHashed();
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
        PageFiles.of(pagePath, "quarkus-app").forEach((path, text) -> {
            if (path.startsWith("src/main/java/")) {
                classes.put(path, text);
            }
        });
        assertThat(classes).as("the Quarkus application's classes, which the Liberty one shares").hasSize(4);
        return classes;
    }


    /**
     * Writes docs/servers.md's {@code application} (with {@code extraFiles}) into a new directory outside the
     * checkout, with this run's version of the library in place of the page's (the project's).
     */
    private Path writeApplication(String application, Map<String, String> extraFiles) throws IOException {
        Map<String, String> files = PageFiles.of(pagePath, application);
        assertThat(files).containsKey("pom.xml");
        String pageVersion = "<ratelimiter.version>" + System.getProperty("release.version") + "<";
        assertThat(files.get("pom.xml")).as("the page's version is the project's").contains(pageVersion);
        Path app = Files.createTempDirectory("rl-" + application);
        apps.add(app);
        PageFiles.write(app, files);
        PageFiles.write(app, extraFiles);
        Path pom = app.resolve("pom.xml");
        Files.writeString(pom, Files.readString(pom).replace(pageVersion,
                "<ratelimiter.version>" + release.version + "<"));
        return app;
    }

    /** The system Maven's command line for {@code args} in {@code app}, with the release's file repository. */
    private List<String> mvn(Path app, List<String> args) throws IOException {
        if (maven == null) {
            maven = SystemMaven.onPath();
            System.out.println("The walkthroughs' Maven, mvn --version:\n" + maven.version());
        }
        return maven.command(app, release.repository, userRepository, args);
    }

    /** limiter-impl reached the user's local repository from the release's file repository. */
    private void assertFromRelease() throws IOException {
        assertFromRelease("limiter-impl");
    }

    /** {@code artifact} reached the user's local repository from the release's file repository. */
    private void assertFromRelease(String artifact) throws IOException {
        assertThat(Files.readString(userRepository.resolve("dev/ratelimiter/" + artifact + "/" + release.version
                + "/_remote.repositories"))).as("%s came from the release's repository", artifact)
                .contains(">release-test=");
    }

    private static List<String> jarNames(Path directory) {
        try (Stream<Path> jars = Files.list(directory)) {
            return jars.map(jar -> jar.getFileName().toString()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String javaExecutable() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
