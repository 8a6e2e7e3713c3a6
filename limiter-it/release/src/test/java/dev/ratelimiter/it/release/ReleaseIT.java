package dev.ratelimiter.it.release;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The release's checks (CONTRIBUTING.md#releasing) on the one {@link Release} of the test JVM, which
 * {@link WalkthroughIT} builds its applications from: what it deploys, every signature, the sources, javadoc, SBOM
 * and module names, the poms' metadata, and that {@code -DskipTests} needed none of {@link Release#HIDDEN} and left
 * the benchmark's smoke pass unrun.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(Release.Resolver.class)
class ReleaseIT {

    private static final List<String> PUBLISHED = List.of("ratelimiter-parent", "limiter-bom", "limiter-api",
            "limiter-impl", "limiter-store-valkey", "limiter-store-postgres");
    /** The published jars, each with the module name applications on the module path see. */
    private static final Map<String, String> MODULE_NAMES = Map.of("limiter-api", "dev.ratelimiter",
            "limiter-impl", "dev.ratelimiter.impl", "limiter-store-valkey", "dev.ratelimiter.store.valkey",
            "limiter-store-postgres", "dev.ratelimiter.store.postgres");

    private Release release;

    @BeforeAll
    void release(Release release) {
        this.release = release;
    }

    @Test
    @DisplayName("the release deploys the parent, the BOM, the API, the implementation and the two store modules, "
            + "nothing else")
    void deploysThePublishedModulesOnly() throws IOException {
        for (String artifact : PUBLISHED) {
            assertThat(release.deployed(artifact, ".pom")).as(artifact).exists();
        }
        try (Stream<Path> artifacts = Files.list(release.repository.resolve("dev/ratelimiter"))) {
            assertThat(artifacts.map(artifact -> artifact.getFileName().toString()))
                    .as("not the example, the integration tests or the benchmarks")
                    .containsExactlyInAnyOrderElementsOf(PUBLISHED);
        }
    }

    @Test
    @DisplayName("-DskipTests needs a JDK and nothing else: the whole reactor builds without redis-server, initdb, "
            + "promtool or wrk on the PATH, and the benchmark's smoke pass does not run")
    void skipTestsNeedsNoServers() throws IOException {
        for (String program : Release.HIDDEN) {
            assertThat(release.hiddenPath.resolve(program)).as("%s is off the release's PATH", program)
                    .doesNotExist();
        }
        assertThat(release.hiddenPath.resolve("java")).as("java is on it").exists();
        Path bench = release.source.resolve("limiter-bench/target");
        assertThat(bench.resolve("limiter-bench-" + release.version + ".jar")).as("the benchmarks were built")
                .exists();
        assertThat(release.source.resolve("limiter-it/quarkus/target/quarkus-app/quarkus-run.jar"))
                .as("so were the integration tests' applications").exists();
        assertThat(bench.resolve("bench-smoke")).as("the smoke pass's output").doesNotExist();
        assertThat(bench.resolve("http")).as("Payara Micro, copied for the benchmark's HTTP section")
                .doesNotExist();
    }

    @Test
    @DisplayName("every deployed file has a signature that the run's key verifies")
    void everyFileIsSigned() throws IOException {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(release.repository.resolve("dev/ratelimiter"))) {
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
            assertThat(Release.run(List.of("gpg", "--batch", "--homedir", release.gnupg.toString(), "--verify",
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
            assertThat(entries(release.deployed(artifact, "-sources.jar"))).as(artifact)
                    .anyMatch(e -> e.endsWith(".java"));
            assertThat(entries(release.deployed(artifact, "-javadoc.jar"))).as(artifact).contains("index.html");
            assertThat(Files.readString(release.deployed(artifact, "-cyclonedx.json")))
                    .as(artifact).contains("\"bomFormat\" : \"CycloneDX\"")
                    .contains("pkg:maven/dev.ratelimiter/" + artifact + "@" + release.version);
            try (JarFile jar = new JarFile(release.deployed(artifact, ".jar").toFile())) {
                assertThat(jar.getManifest().getMainAttributes().getValue("Automatic-Module-Name"))
                        .as(artifact).isEqualTo(module.getValue());
            }
        }
    }

    @Test
    @DisplayName("the poms carry what Maven Central requires; the BOM stands alone and pins only the library")
    void centralMetadata() throws IOException {
        String parent = Files.readString(release.deployed("ratelimiter-parent", ".pom"));
        assertThat(parent).contains("<url>", "<name>Apache-2.0</name>", "<developers>", "<scm",
                "<connection>", "<description>");
        String bom = Files.readString(release.deployed("limiter-bom", ".pom"));
        assertThat(bom).doesNotContain("<parent>").contains("<name>Apache-2.0</name>", "<developers>", "<scm",
                "<url>", "<description>");
        assertThat(bom.split("<artifactId>", -1)).as("artifactIds in the BOM: its own and the four modules")
                .hasSize(6);
        assertThat(bom).contains("<artifactId>limiter-api</artifactId>", "<artifactId>limiter-impl</artifactId>",
                        "<artifactId>limiter-store-valkey</artifactId>", "<artifactId>limiter-store-postgres</artifactId>")
                .doesNotContain("jedis", "postgresql", "HikariCP");
        for (String artifact : MODULE_NAMES.keySet()) {
            assertThat(Files.readString(release.deployed(artifact, ".pom"))).as(artifact)
                    .contains("<name>", "<description>");
        }
    }

    private static List<String> entries(Path jar) throws IOException {
        try (JarFile file = new JarFile(jar.toFile())) {
            return file.stream().map(entry -> entry.getName()).toList();
        }
    }
}
