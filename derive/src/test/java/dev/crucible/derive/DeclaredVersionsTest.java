package dev.crucible.derive;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** The versions a project declares, for a matrix CI computes at run time. */
class DeclaredVersionsTest {
    private static Function<String, String> files(Map<String, String> files) {
        return files::get;
    }

    private static List<String> versions(String toolchain, Map<String, String> files) {
        DeclaredVersions.Declared d = DeclaredVersions.of(toolchain, files(files));
        return d == null ? null : d.versions();
    }

    @Test
    void pythonClassifiersWinOverRequiresPython() {
        assertThat(versions("python", Map.of("pyproject.toml", "requires-python = \">=3.8\"\nclassifiers = [\n"
                + "  \"Programming Language :: Python :: 3.12\",\n  \"Programming Language :: Python :: 3.10\",\n"
                + "  \"Programming Language :: Python :: 3 :: Only\",\n]\n"))).containsExactly("3.10", "3.12");
        assertThat(versions("python", Map.of("setup.cfg", "[options]\npython_requires = >=3.11\n")))
                .containsExactly("3.11", "3.12", "3.13", "3.14");
        assertThat(versions("python", Map.of("setup.py", "setup(name='x', python_requires='>=3.7,<3.9')\n"))).containsExactly("3.7", "3.8");
        assertThat(versions("python", Map.of("setup.py", "setup(\n    python_requires='>=3.7,<3.9',\n)\n")))
                .containsExactly("3.7", "3.8");
        assertThat(versions("python", Map.of())).isNull();
    }

    @Test
    void goRustAndNode() {
        assertThat(versions("go", Map.of("go.mod", "module x\n\ngo 1.22.1\n"))).containsExactly("1.22.1");
        assertThat(versions("rust", Map.of("Cargo.toml", "[package]\nrust-version = \"1.70\"\n"))).containsExactly("1.70", "stable");
        assertThat(versions("node", Map.of("package.json", "{\"engines\": {\"node\": \">= 18\"}}"))).containsExactly("18", "20", "22", "24");
        assertThat(versions("node", Map.of("package.json", "{\"engines\": {\"node\": \"^18.0.0 || ^20.0.0\"}}"))).containsExactly("18", "20");
        assertThat(versions("node", Map.of("package.json", "{\"engines\": {\"node\": \">=16 <21\"}}"))).containsExactly("16", "18", "20");
        assertThat(versions("node", Map.of("package.json", "{\"name\": \"x\"}"))).isNull();
        assertThat(versions("java", Map.of())).isNull();
    }
}
