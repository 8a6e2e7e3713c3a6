package dev.ratelimiter.it.release;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The release, as a publisher runs it (CONTRIBUTING.md#releasing), made once per test JVM and shared by
 * {@link ReleaseIT} (its checks) and {@link WalkthroughIT} (the new applications built from it): {@code -Prelease
 * deploy} signs with a key made for this run and deploys to a file repository under target/. A test class gets it
 * as a parameter of its {@code @BeforeAll} method through {@link Resolver}; JUnit closes it once every class is done.
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
 * <p>Closing it deletes this run's version of every artifact of the library from the user's local repository (the
 * walkthroughs' builds put it there) and stops the key's gpg-agent.
 */
final class Release implements AutoCloseable {

    /** What {@code ./mvnw install -DskipTests} must not need; the benchmark and the alert rules' tests use them. */
    static final Set<String> HIDDEN = Set.of("redis-server", "redis-cli", "redis-benchmark", "initdb",
            "pg_ctl", "pgbench", "pgbouncer", "promtool", "wrk");

    final Path checkout = Path.of(System.getProperty("release.checkout")).toAbsolutePath().normalize();
    final Path work = Path.of(System.getProperty("release.work"));
    final Path userRepository = Path.of(System.getProperty("release.localRepository"));
    /** This run's version of the library, {@code <version>-rt<time>}. */
    final String version = System.getProperty("release.version").replace("-SNAPSHOT", "")
            + "-rt" + System.currentTimeMillis();
    /** The file repository the release deployed to. */
    final Path repository = work.resolve("repository");
    /** The copy of the checkout the release built. */
    final Path source;
    /** The release's PATH: this one without {@link #HIDDEN}. */
    final Path hiddenPath;
    /** The GnuPG home holding the run's signing key. */
    final Path gnupg;

    private Release() throws IOException {
        deleteTree(work);
        source = copyCheckout(work.resolve("source"));
        // A short path: gpg-agent's socket lives in the home directory, and socket paths are short.
        gnupg = Files.createTempDirectory("rl-gpg");
        assertThat(run(List.of("gpg", "--batch", "--homedir", gnupg.toString(), "--passphrase", "",
                "--quick-gen-key", "Release Test <release-test@example.invalid>", "ed25519", "sign", "never")))
                .as("a throwaway signing key").isZero();
        hiddenPath = PathWithout.create(work.resolve("path"), HIDDEN);
        Path log = work.resolve("release.log");
        try {
            long began = System.nanoTime();
            int exit = MavenRun.wrapper(source.resolve("mvnw"), source, work.resolve("m2-release"),
                    Map.of("PATH", hiddenPath.toString()), log, List.of(
                            "-Prelease", "deploy", "-DskipTests",
                            "-DaltDeploymentRepository=release-test::file:" + repository,
                            "-Dgpg.homedir=" + gnupg));
            System.out.printf("The release took %.0f s%n", (System.nanoTime() - began) / 1e9);
            assertThat(exit).as("./mvnw -Prelease deploy -DskipTests, log %s:\n%s", log, MavenRun.tail(log))
                    .isZero();
        } catch (RuntimeException | Error e) {
            close(); // no store holds a release that failed to be made, so JUnit would not close it
            throw e;
        }
    }

    /** Resolves a {@link Release} parameter: the one release of this JVM, made by the first class that asks. */
    static final class Resolver implements ParameterResolver {

        private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(Release.class);

        @Override
        public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
            return parameter.getParameter().getType() == Release.class;
        }

        @Override
        public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
            // The root context's store: shared by every class of the JVM, closed after the last one.
            return context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(Release.class, type -> {
                try {
                    return new Release();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }, Release.class);
        }
    }

    /** The deployed file of {@code artifact} in this run's version, such as {@code -sources.jar}. */
    Path deployed(String artifact, String suffix) {
        return repository.resolve("dev/ratelimiter/" + artifact + "/" + version + "/" + artifact + "-" + version
                + suffix);
    }

    @Override
    public void close() throws IOException {
        deleteReleaseVersion();
        quietly(List.of("gpgconf", "--homedir", gnupg.toString(), "--kill", "gpg-agent"));
        deleteTree(gnupg);
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

    /** Deletes this run's version of every artifact of the library from the user's local repository. */
    private void deleteReleaseVersion() throws IOException {
        Path library = userRepository.resolve("dev/ratelimiter");
        if (!Files.isDirectory(library)) {
            return;
        }
        try (Stream<Path> artifacts = Files.list(library)) {
            for (Path artifact : artifacts.toList()) {
                deleteTree(artifact.resolve(version));
            }
        }
    }

    /** Runs {@code command}, its output printed if it fails; returns its exit code. */
    static int run(List<String> command) {
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
    static void quietly(List<String> command) {
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

    static void deleteTree(Path root) throws IOException {
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
