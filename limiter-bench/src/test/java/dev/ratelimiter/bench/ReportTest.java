package dev.ratelimiter.bench;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class ReportTest {

    private static final Section VALKEY = new Section("Valkey: decisions per second", "How it ran.", List.of(
            Row.of("16 threads, 10 000 keys: library store / bare Jedis loop",
                    new Figure("library store", 90_300, "decisions/s"),
                    new Figure("bare Jedis loop", 98_700, "decisions/s"), Goal.atLeast(11, 0.95,
                            "store / bare client loop", "measure on an idle machine.")),
            Row.of("16 threads, 10 000 keys: library decision path / redis-benchmark EVALSHA",
                    new Figure("library decision path", 66_000, "decisions/s"),
                    new Figure("redis-benchmark EVALSHA", 55_000, "decisions/s"), Goal.atLeast(29, 1.5, 1.0,
                            "batched path / the store's tool", "share more round trips.")),
            Row.of("16 threads, 10 000 keys: library store, token bucket / library store",
                    new Figure("token bucket", 70_000, "decisions/s"),
                    new Figure("library store", 100_000, "decisions/s"), Goal.atLeast(31, 0.9, 0.8,
                            "token bucket / fixed window", "one statement either way.")),
            Row.alone("time from SIGSTOP to the breaker open", new Figure("breaker", 114, "ms"))));

    @Test
    void a_row_shows_its_figure_its_anchor_their_ratio_and_whether_the_goal_is_met() {
        assertThat(Report.markdown("# Benchmarks\n", List.of(VALKEY)))
                .contains("## Valkey: decisions per second\n\nHow it ran.")
                .contains("| 16 threads, 10 000 keys: library store / bare Jedis loop | 90 300 decisions/s "
                        + "| 98 700 decisions/s | 0.91 | ≥ 0.95 **missed** |")
                .contains("| time from SIGSTOP to the breaker open | 114 ms | — | — |  |");
    }

    @Test
    void rows_with_a_goal_are_gathered_before_the_sections() {
        String markdown = Report.markdown("# Benchmarks\n", List.of(VALKEY));

        assertThat(markdown).contains("| Valkey: decisions per second | 16 threads, 10 000 keys: library store / "
                + "bare Jedis loop | 0.91 | ≥ 0.95 | **missed** | — | — | #11 |");
        assertThat(markdown).contains("What would close each goal missed in this run:\n\n"
                + "- **store / bare client loop ≥ 0.95**: measure on an idle machine.\n");
        assertThat(markdown.indexOf("## Goals")).isLessThan(markdown.indexOf("## Valkey"));
        assertThat(markdown.substring(markdown.indexOf("## Goals"), markdown.indexOf("## Valkey")))
                .doesNotContain("breaker");
    }

    @Test
    void a_goal_missed_is_told_apart_from_a_must_hold_missed() {
        String markdown = Report.markdown("# Benchmarks\n", List.of(VALKEY));

        assertThat(markdown).contains("| Valkey: decisions per second | 16 threads, 10 000 keys: library decision "
                + "path / redis-benchmark EVALSHA | 1.20 | ≥ 1.5 | **missed** | ≥ 1 | held | #29 |");
        assertThat(markdown).contains("| Valkey: decisions per second | 16 threads, 10 000 keys: library store, "
                + "token bucket / library store | 0.70 | ≥ 0.9 | **missed** | ≥ 0.8 | **missed** | #31 |");
        assertThat(markdown).contains("| 66 000 decisions/s | 55 000 decisions/s | 1.20 | ≥ 1.5 **missed** "
                + "(must ≥ 1: held) |");
        assertThatThrownBy(() -> Goal.atLeast(29, 1.0, 1.5, "backwards", "closing"))
                .hasMessageContaining("must-hold 1.5 is past the goal 1.0");
        assertThatThrownBy(() -> Goal.atLeast(0, 1.0, "no issue", "closing"))
                .hasMessageContaining("names the issue");
    }

    @Test
    void the_results_file_holds_every_figure_its_ratio_and_the_goal() throws IOException {
        Path directory = Files.createTempDirectory("bench-report-");
        Report.write(directory, "# Benchmarks\n", List.of(VALKEY), Map.of("mode", "smoke"));

        try (JsonReader reader = Json.createReader(Files.newBufferedReader(directory.resolve("benchmarks.json")))) {
            JsonObject results = reader.readObject();
            JsonObject row = results.getJsonArray("sections").getJsonObject(0).getJsonArray("rows")
                    .getJsonObject(0);
            assertThat(results.getJsonObject("environment").getString("mode")).isEqualTo("smoke");
            assertThat(row.getJsonObject("figure").getJsonNumber("value").doubleValue()).isEqualTo(90_300);
            assertThat(row.getJsonObject("anchor").getString("source")).isEqualTo("bare Jedis loop");
            assertThat(row.getJsonNumber("ratio").doubleValue()).isCloseTo(0.915, within(0.001));
            assertThat(row.getBoolean("goalMet")).isFalse();
            assertThat(row.getJsonObject("goal").getString("ifMissed")).isEqualTo("measure on an idle machine.");
            assertThat(row.getJsonObject("goal").getInt("issue")).isEqualTo(11);
            JsonObject batched = results.getJsonArray("sections").getJsonObject(0).getJsonArray("rows")
                    .getJsonObject(1);
            assertThat(batched.getJsonObject("goal").getJsonNumber("mustHold").doubleValue()).isEqualTo(1.0);
            assertThat(batched.getBoolean("mustHoldHeld")).isTrue();
        }
        assertThat(directory.resolve("BENCHMARKS.md")).content().startsWith("# Benchmarks");
    }

    @Test
    void a_section_that_measured_nothing_fails_the_run() {
        assertThatThrownBy(() -> new Section("HTTP", "How it ran.", List.of()))
                .hasMessageContaining("section 'HTTP' measured nothing");
        assertThatThrownBy(() -> new Section("HTTP", "How it ran.",
                List.of(Row.alone("round 1", new Figure("limiter on", Double.NaN, "requests/s")))))
                .hasMessageContaining("round 1");
    }

    @Test
    void numbers_keep_three_significant_digits() {
        assertThat(Report.number(90_349)).isEqualTo("90 300");
        assertThat(Report.number(1_234_567)).isEqualTo("1 230 000");
        assertThat(Report.number(37.24)).isEqualTo("37.2");
        assertThat(Report.number(0.8123)).isEqualTo("0.812");
        assertThat(Report.number(317)).isEqualTo("317");
    }
}
