package dev.crucible.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.crucible.probe.pooling.Pooling;
import org.junit.jupiter.api.Test;

/** The poolings on a hand-checked 4×2 matrix (plus padding rows that must be ignored). */
class PoolingTest {
    static final float[][] H = {{1, 10}, {2, -20}, {3, 30}, {6, 40}, {99, 99}};
    static final int ROWS = 4;

    static float[] pool(String name) {
        return Pooling.parse(name).pool(H, ROWS);
    }

    @Test
    void theSevenPoolingsOfThePaper() {
        assertThat(pool("last_token")).containsExactly(6, 40);
        assertThat(pool("mean_full")).containsExactly(3, 15);
        assertThat(pool("mean_last_50")).containsExactly(3, 15);          // fewer than 50 rows: all
        assertThat(pool("mean_last_2")).containsExactly(4.5f, 35);
        assertThat(pool("mean_last_half")).containsExactly(4.5f, 35);
        assertThat(pool("max")).containsExactly(6, 40);
        assertThat(pool("first_last_concat")).containsExactly(1, 10, 6, 40);
        float[] ms = pool("mean_std_concat");
        assertThat(ms).hasSize(4);
        assertThat(ms[0]).isEqualTo(3f);
        assertThat(ms[2]).isCloseTo((float) Math.sqrt((4 + 1 + 0 + 9) / 4.0), org.assertj.core.data.Offset.offset(1e-6f));
    }

    @Test
    void oddLengthsAndSingleRows() {
        float[][] three = {{1}, {2}, {4}};
        assertThat(Pooling.parse("mean_last_half").pool(three)).containsExactly(3f);   // rows 1..2
        float[][] one = {{5, 7}};
        assertThat(Pooling.parse("mean_last_half").pool(one)).containsExactly(5, 7);
        assertThat(Pooling.parse("mean_std_concat").pool(one)).containsExactly(5, 7, 0, 0);
        assertThat(Pooling.parse("first_last_concat").outputDim(64)).isEqualTo(128);
    }

    @Test
    void aliasesAndErrors() {
        assertThat(Pooling.parse("mean").name()).isEqualTo("mean_full");
        assertThat(Pooling.parse("LAST").name()).isEqualTo("last_token");
        assertThatThrownBy(() -> Pooling.parse("median")).hasMessageContaining("median");
        assertThatThrownBy(() -> Pooling.parse("mean_last_0")).hasMessageContaining("mean_last_N");
        assertThatThrownBy(() -> Pooling.parse("max").pool(H, 0)).hasMessageContaining("empty");
    }
}
