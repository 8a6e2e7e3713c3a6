package dev.ratelimiter.bench;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StoreSectionTest {

    /** A rig whose contenders answer fixed figures: the store at 900/s, its bare client at 1 000/s. */
    private static StoreRig rig(List<Comparison> comparisons) {
        return rig(List.of(
                Contender.of(StoreRig.STORE, load -> new Figure(StoreRig.STORE, 900, "decisions/s", Map.of())),
                Contender.of("bare client", load -> new Figure("bare client", 1_000, "decisions/s"))), comparisons);
    }

    private static StoreRig rig(List<Contender> contenders, List<Comparison> comparisons) {
        return new StoreRig() {
            @Override
            String name() {
                return "Fake";
            }

            @Override
            String server() {
                return "none";
            }

            @Override
            List<Contender> contenders() {
                return contenders;
            }

            @Override
            List<Comparison> comparisons() {
                return comparisons;
            }
        };
    }

    @Test
    void a_comparison_is_one_row_per_load_with_its_goal() throws Exception {
        Section section = StoreSection.run(Mode.SMOKE, rig(List.of(
                Comparison.withGoal(StoreRig.STORE, "bare client", load -> Goal.atLeast(11, 0.95, "store", "closing")))));

        assertThat(section.rows()).extracting(Row::what).containsExactly(
                "4 threads, one hot key: library store / bare client",
                "4 threads, 10 000 keys: library store / bare client");
        assertThat(section.rows().get(0).ratio()).contains(0.9);
        assertThat(section.rows().get(0).goal()).contains(new Goal(0.95, Double.NaN, true, 11, "store", "closing"));
    }

    @Test
    void a_row_is_the_round_of_median_ratio_with_the_spread_of_the_others() throws Exception {
        // The store's rate per call: the unrecorded pass, then three rounds of each load; the bare client at 1 000/s.
        double[] rates = {0, 900, 500, 950, 400, 800, 700};
        AtomicInteger calls = new AtomicInteger();
        List<String> order = new ArrayList<>();
        StoreRig rig = rig(List.of(Contender.of(StoreRig.STORE, load -> {
            order.add(StoreRig.STORE);
            return new Figure(StoreRig.STORE, rates[calls.getAndIncrement()], "decisions/s", Map.of("p99_us", 7.0));
        }), Contender.of("bare client", load -> {
            order.add("bare client");
            return new Figure("bare client", 1_000, "decisions/s");
        })), List.of(Comparison.of(StoreRig.STORE, "bare client")));

        Section section = StoreSection.run(Mode.SMOKE, rig);

        assertThat(section.rows()).extracting(row -> row.ratio().orElseThrow()).containsExactly(0.9, 0.7);
        assertThat(section.rows().get(0).figure().details()).containsEntry("p99_us", 7.0)
                .containsEntry("rounds", 3.0).containsEntry("ratio_min", 0.5).containsEntry("ratio_max", 0.95);
        assertThat(section.rows().get(1).figure().details())
                .containsEntry("ratio_min", 0.4).containsEntry("ratio_max", 0.8);
        // after the unrecorded pass, each load's rounds take the contenders in turn, the second round reversed
        assertThat(order.subList(2, 8)).containsExactly(StoreRig.STORE, "bare client", "bare client",
                StoreRig.STORE, StoreRig.STORE, "bare client");
    }

    @Test
    void a_text_keeps_the_rows_that_name_it_and_measures_only_the_contenders_they_compare() throws Exception {
        List<String> measured = new ArrayList<>();
        StoreRig rig = rig(List.of(
                Contender.of(StoreRig.STORE, load -> {
                    measured.add(StoreRig.STORE);
                    return new Figure(StoreRig.STORE, 900, "decisions/s");
                }),
                Contender.of(StoreRig.PERMIT_PAIRS, load -> {
                    measured.add(StoreRig.PERMIT_PAIRS);
                    return new Figure(StoreRig.PERMIT_PAIRS, 400, "pairs/s");
                }),
                Contender.of("tool", load -> {
                    measured.add("tool");
                    return new Figure("tool", 1_000, "decisions/s");
                })), List.of(
                Comparison.of(StoreRig.STORE, "tool"),
                Comparison.of(StoreRig.PERMIT_PAIRS, "tool").named(StoreRig.PERMIT_PAIRS + ", in pairs/s / tool")));

        Section section = StoreSection.run(Mode.SMOKE, rig, "take and give back");

        assertThat(section.rows()).extracting(Row::what).containsExactly(
                "4 threads, one hot key: library store, permit take and give back, in pairs/s / tool",
                "4 threads, 10 000 keys: library store, permit take and give back, in pairs/s / tool");
        assertThat(section.rows().get(0).ratio()).contains(0.4);
        assertThat(measured).isNotEmpty().doesNotContain(StoreRig.STORE);
        assertThatThrownBy(() -> StoreSection.run(Mode.SMOKE, rig, "deny cache"))
                .hasMessageContaining("no row of Fake names 'deny cache'");
    }

    @Test
    void a_comparison_naming_no_contender_fails() {
        assertThatThrownBy(() -> StoreSection.run(Mode.SMOKE, rig(List.of(
                Comparison.of(StoreRig.STORE, "deny cache")))))
                .hasMessageContaining("'deny cache', which is no contender");
    }
}
