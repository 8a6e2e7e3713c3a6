package dev.ratelimiter.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/** Where and with what a run measured: machine, JVM, library and tool versions, the command. */
final class Environment {

    private Environment() {
    }

    static Map<String, String> describe(Mode mode, Duration took, Map<String, String> servers) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("date", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
        env.put("mode", mode.name());
        env.put("note", System.getProperty("bench.note", ""));
        env.put("duration", took.toString());
        env.put("command", BenchmarkRun.COMMAND + (mode.smoke() ? " (smoke: ./mvnw verify)" : ""));
        env.put("cpu", Runtime.getRuntime().availableProcessors() + " × " + cpuModel());
        env.put("memory", memory());
        env.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        env.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        env.put("library", version("dev.ratelimiter", "limiter-impl"));
        env.put("Jedis", version("redis.clients", "jedis"));
        env.put("pgjdbc", manifestVersion(org.postgresql.Driver.class));
        env.put("HikariCP", version("com.zaxxer", "HikariCP"));
        env.put("Bucket4j", version("com.bucket4j", "bucket4j_jdk17-core"));
        env.put("Resilience4j", manifestVersion(io.github.resilience4j.ratelimiter.RateLimiter.class));
        env.put("Guava", version("com.google.guava", "guava"));
        env.put("JMH", version("org.openjdk.jmh", "jmh-core"));
        env.putAll(servers);
        env.put("redis-benchmark", Tools.firstLine("redis-benchmark", "--version"));
        env.put("pgbench", Tools.firstLine("pgbench", "--version"));
        env.put("wrk", mode.smoke() ? "not used by the smoke run" : Tools.firstLine("wrk", "--version"));
        return env;
    }

    static String header(Map<String, String> env) {
        StringBuilder md = new StringBuilder("# Benchmarks\n\n");
        md.append("What a decision of the Jakarta Rate Limiter costs, beside the stores' own tools, bare client ")
                .append("loops and other limiters, all measured in one run. Written by `").append(env.get("command"))
                .append("` (about 30 minutes on 2 cores; the iteration counts are chosen for that), which ")
                .append("starts its own `redis-server`, PostgreSQL cluster and Payara Micro servers on free ports. ")
                .append("Absolute figures depend on the machine and its load: every claim is a ratio of two ")
                .append("figures of the same run, and ratios move by about ±20 % between runs. Each goal names the ")
                .append("issue that set it (11: stores and paths at their clients' speed; 29: batching; 30: the ")
                .append("in-memory decision beside Bucket4j and HTTP, as medians of alternating runs; 31 and 32: ")
                .append("the token bucket and the sliding window beside the fixed window, in memory at 1 thread ")
                .append("as medians of alternating runs too; 54: what a burst admits; 60: quota leases on a hot ")
                .append("key) ")
                .append("and, where the issue set one apart from the goal, the bound it must hold; the results ")
                .append("file `benchmarks.json` holds every figure with its details.\n\n");
        String note = env.getOrDefault("note", "");
        if (!note.isBlank()) {
            md.append("**").append(note).append("**\n\n");
        }
        md.append("| | |\n|---|---|\n");
        env.forEach((key, value) -> md.append("| ").append(key).append(" | ").append(value).append(" |\n"));
        return md.toString();
    }

    /** The version Maven recorded in the artifact's jar ({@code META-INF/maven/.../pom.properties}). */
    static String version(String groupId, String artifactId) {
        String path = "META-INF/maven/" + groupId + "/" + artifactId + "/pom.properties";
        try (InputStream in = Environment.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                return "unknown";
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    /** The Implementation-Version of the jar {@code type} comes from, for jars without Maven's properties. */
    private static String manifestVersion(Class<?> type) {
        String version = type.getPackage().getImplementationVersion();
        return version != null ? version : "unknown";
    }

    private static String cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                    .findFirst().map(l -> l.substring(l.indexOf(':') + 1).trim()).orElse("unknown CPU");
        } catch (IOException e) {
            return "unknown CPU";
        }
    }

    private static String memory() {
        try {
            return Files.readAllLines(Path.of("/proc/meminfo")).stream().filter(l -> l.startsWith("MemTotal"))
                    .findFirst().map(l -> l.replace("MemTotal:", "").trim()).orElse("unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
