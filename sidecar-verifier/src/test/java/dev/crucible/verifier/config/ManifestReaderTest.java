package dev.crucible.verifier.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.crucible.verifier.Environment;
import dev.crucible.verifier.support.Fixtures;
import org.junit.jupiter.api.Test;

/** The manifest format of examples/python-bugfix, and errors that name the file and the field. */
class ManifestReaderTest {
    @Test
    void readsTheExampleIgnoringFieldsItDoesNotUse() {
        Environment env = Environment.load(Fixtures.example().resolve("environment.yaml"));
        assertThat(env.name()).isEqualTo("calc-divide-bugfix");
        VerifierSpec v = env.verifier();
        assertThat(v.typeOrDefault()).isEqualTo("test-suite");
        assertThat(v.failToPass()).containsExactly("tests/test_ops.py::test_divide_negative", "tests/test_ops.py::test_divide_by_zero");
        assertThat(v.protectedPaths()).contains("tests/**");
        assertThat(env.spec().tools()).containsExactly("bash", "read_file", "write_file", "edit", "list");
        assertThat(env.workspacePath().orElseThrow().toString()).endsWith("python-bugfix/workspace");
    }

    @Test
    void acceptsJustTheSpecAsJson() {
        EnvironmentSpec s = ManifestReader.parse("{\"verifier\":{\"type\":\"execution\",\"command\":\"true\"},\"hackPolicy\":{\"action\":\"terminate\"}}", "x.json");
        assertThat(s.hackPolicy().action()).isEqualTo("terminate");
    }

    @Test
    void sourceHistoryDefaultsToOneCommitAndAcceptsOnlyItsTwoModes() {
        EnvironmentSpec plain = ManifestReader.parse("spec:\n  source: {repo: ./r, commit: abcdef1}\n  verifier: {command: x}\n", "s.yaml");
        assertThat(plain.source().historyOrDefault()).isEqualTo("commit");
        EnvironmentSpec kept = ManifestReader.parse("spec:\n  source: {repo: ./r, commit: abcdef1, history: ancestors}\n  verifier: {command: x}\n", "s.yaml");
        assertThat(kept.source().historyOrDefault()).isEqualTo("ancestors");
        assertThatThrownBy(() -> ManifestReader.parse("spec:\n  source: {repo: ./r, commit: abcdef1, history: all}\n  verifier: {command: x}\n", "s.yaml"))
                .hasMessageContaining("s.yaml: spec.source.history: must be commit").hasMessageContaining("got 'all'");
    }

    @Test
    void errorsNameFileAndField() {
        assertThatThrownBy(() -> ManifestReader.parse("spec:\n  verifier:\n    type: magic\n", "e.yaml"))
                .hasMessage("e.yaml: spec.verifier.type: must be one of " + SpecValidator.TYPES + ", got 'magic'");
        assertThatThrownBy(() -> ManifestReader.parse("kind: RLEnvironment\nspec:\n  verifier:\n    command: x\n    timeoutSeconds: soon\n", "f.yaml"))
                .hasMessageStartingWith("f.yaml: spec.verifier.timeoutSeconds:");
        assertThatThrownBy(() -> ManifestReader.parse("kind: RLEnvironment\nspec:\n  verifier:\n    command: x\n    failToPass: 3\n", "f.yaml"))
                .hasMessageStartingWith("f.yaml: spec.verifier.failToPass:");
        assertThatThrownBy(() -> ManifestReader.parse("kind: Rollout\nspec: {}\n", "r.yaml")).hasMessage("r.yaml: kind: expected RLEnvironment, got Rollout");
        assertThatThrownBy(() -> ManifestReader.parse("spec:\n  verifier: {type: io, command: x}\n", "i.yaml"))
                .hasMessageContaining("spec.verifier.ioCases: at least one case");
        assertThatThrownBy(() -> ManifestReader.parse("spec:\n  verifier: {command: x}\n  hackPolicy: {action: explode, detectors: [psychic]}\n", "h.yaml"))
                .hasMessageContaining("spec.hackPolicy.action").hasMessageContaining("spec.hackPolicy.detectors[0]: unknown detector 'psychic'");
        assertThatThrownBy(() -> ManifestReader.parse("spec:\n  verifier:\n    type: composite\n    components: [{name: a, verifier: {type: io, command: x}}]\n", "c.yaml"))
                .hasMessageContaining("spec.verifier.components[0].ioCases");
        // the CRD's shape: each component's checks inline beside its name and weight
        assertThatThrownBy(() -> ManifestReader.parse("spec:\n  verifier:\n    type: composite\n    components: [{name: a, type: io, command: x}]\n", "c.yaml"))
                .hasMessageContaining("spec.verifier.components[0].ioCases");
        assertThatThrownBy(() -> ManifestReader.parse(": : :\n  - [", "bad.yaml")).hasMessageStartingWith("bad.yaml: not valid YAML/JSON");
    }

    @Test
    void compositeComponentsAreReadInTheCrdsInlineShape() {
        var spec = ManifestReader.parse("""
                spec:
                  verifier:
                    type: composite
                    components:
                      - {name: unit, type: test-suite, command: pytest -q, failToPass: [t::a], weight: 0.7}
                      - {name: lint, verifier: {type: execution, command: ruff check .}}
                """, "c.yaml");
        var unit = spec.verifier().components().get(0);
        assertThat(unit.name()).isEqualTo("unit");
        assertThat(unit.weightOrDefault()).isEqualTo(0.7);
        assertThat(unit.verifier().command()).isEqualTo("pytest -q");
        assertThat(unit.verifier().failToPass()).containsExactly("t::a");
        assertThat(spec.verifier().components().get(1).verifier().typeOrDefault()).isEqualTo("execution");
    }
}
