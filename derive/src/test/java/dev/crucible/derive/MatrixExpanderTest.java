package dev.crucible.derive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MatrixExpanderTest {
    private static Map<String, Object> map(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    private static List<String> described(List<Map<String, Object>> combos) {
        return combos.stream().map(MatrixExpander::describe).toList();
    }

    @Test
    void productInKeyOrderFirstKeyOutermost() throws Exception {
        var combos = MatrixExpander.expand(map("os", List.of("a", "b"), "v", List.of("1", "2")));
        assertThat(described(combos)).containsExactly("os=a, v=1", "os=a, v=2", "os=b, v=1", "os=b, v=2");
    }

    @Test
    void excludeMatchesPartially() throws Exception {
        var combos = MatrixExpander.expand(map("os", List.of("a", "b"), "v", List.of("1", "2"),
                "exclude", List.of(map("v", "2"))));
        assertThat(described(combos)).containsExactly("os=a, v=1", "os=b, v=1");
    }

    /** The example of GitHub's documentation ("Expanding or adding matrix configurations"). */
    @Test
    void includeAsGitHubDocumentsIt() throws Exception {
        var combos = MatrixExpander.expand(map(
                "fruit", List.of("apple", "pear"),
                "animal", List.of("cat", "dog"),
                "include", List.of(
                        map("color", "green"),
                        map("color", "pink", "animal", "cat"),
                        map("fruit", "apple", "shape", "circle"),
                        map("fruit", "banana"),
                        map("fruit", "banana", "animal", "cat"))));
        assertThat(described(combos)).containsExactly(
                "fruit=apple, animal=cat, color=pink, shape=circle",
                "fruit=apple, animal=dog, color=green, shape=circle",
                "fruit=pear, animal=cat, color=pink",
                "fruit=pear, animal=dog, color=green",
                "fruit=banana",
                "fruit=banana, animal=cat");
    }

    @Test
    void onlyIncludeEntries() throws Exception {
        var combos = MatrixExpander.expand(map("include", List.of(map("site", "prod"), map("site", "dev"))));
        assertThat(described(combos)).containsExactly("site=prod", "site=dev");
    }

    @Test
    void noMatrixIsOneEmptyCombination() throws Exception {
        assertThat(MatrixExpander.expand(null)).containsExactly(Map.of());
    }

    @Test
    void computedMatricesCannotBeExpanded() {
        assertThatThrownBy(() -> MatrixExpander.expand("${{ fromJSON(needs.setup.outputs.matrix) }}"))
                .hasMessageContaining("computed at run time").hasMessageContaining("--matrix");
        assertThatThrownBy(() -> MatrixExpander.expand(map("v", "${{ fromJSON(inputs.versions) }}")))
                .hasMessageContaining("matrix key 'v' is not a list");
    }

    @Test
    void everythingExcluded() {
        assertThatThrownBy(() -> MatrixExpander.expand(map("v", List.of("1"), "exclude", List.of(map("v", "1")))))
                .hasMessageContaining("no combinations left");
    }
}
