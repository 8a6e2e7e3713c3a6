package dev.ratelimiter.bench;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StoreSectionTest {

    /** A rig whose contenders answer fixed figures: the store at 900/s, its bare client at 1 000/s. */
    private static StoreRig rig(List<Comparison> comparisons) {
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
                return List.of(
                        Contender.of(STORE, load -> new Figure(STORE, 900, "decisions/s", Map.of())),
                        Contender.of("bare client", load -> new Figure("bare client", 1_000, "decisions/s")));
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
    void a_comparison_naming_no_contender_fails() {
        assertThatThrownBy(() -> StoreSection.run(Mode.SMOKE, rig(List.of(
                Comparison.of(StoreRig.STORE, "deny cache")))))
                .hasMessageContaining("'deny cache', which is no contender");
    }
}
