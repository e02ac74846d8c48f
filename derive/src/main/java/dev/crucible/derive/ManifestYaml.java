package dev.crucible.derive;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * Prints a derivation as the user sees it: the step report as YAML comments, then the manifest.
 * Multi-line scripts print as literal blocks, and values that look like numbers stay quoted so
 * "3.10" does not come back as 3.1.
 */
final class ManifestYaml {
    private static final YAMLMapper YAML = new YAMLMapper(YAMLFactory.builder()
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
            .enable(YAMLGenerator.Feature.LITERAL_BLOCK_STYLE)
            .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
            .enable(YAMLGenerator.Feature.INDENT_ARRAYS_WITH_INDICATOR)
            .build());

    private ManifestYaml() {
    }

    static String render(Derivation d) {
        StringBuilder out = new StringBuilder();
        out.append("# Derived by `crucible derive` from ").append(d.workflowPath()).append(", job '")
                .append(d.jobId()).append("' (line ").append(d.jobLine()).append(")")
                .append(d.commit() != null ? " at commit " + d.commit() : " (working tree)").append(".\n");
        if (!d.matrix().isEmpty()) {
            out.append("# matrix: ").append(describe(d.matrix())).append(" (one of ")
                    .append(d.matrixCombinations()).append(" combinations; choose another with --matrix)\n");
        }
        boolean placeholder = ManifestBuilder.PROMPT_PLACEHOLDER.equals(d.manifest().at("/spec/task/prompt").asText());
        if (placeholder) {
            out.append("# spec.task.prompt is a placeholder: write the task before using this environment.\n");
        }
        out.append("#\n# Steps:\n");
        for (StepReport s : d.steps()) {
            out.append("#   ").append(s.index()).append(". line ").append(s.line()).append(" '")
                    .append(oneLine(s.name())).append("': ").append(s.decision().name().toLowerCase())
                    .append(" - ").append(oneLine(s.reason())).append('\n');
            for (String n : s.notes()) {
                out.append("#        note: ").append(oneLine(n)).append('\n');
            }
        }
        if (!d.notes().isEmpty()) {
            out.append("#\n# Notes:\n");
            for (String n : d.notes()) {
                out.append("#   - ").append(oneLine(n)).append('\n');
            }
        }
        try {
            String yaml = YAML.writeValueAsString(d.manifest());
            // Jackson cannot attach comments to fields; the one the user must act on is placed by hand.
            if (placeholder) {
                yaml = yaml.replaceFirst("(?m)^  task:\n",
                        "  # Placeholder: replace this prompt with the task the agent should do.\n  task:\n");
            }
            return out.append(yaml).toString();
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String describe(Map<String, String> matrix) {
        StringBuilder s = new StringBuilder();
        matrix.forEach((k, v) -> s.append(s.length() == 0 ? "" : ", ").append(k).append('=').append(v));
        return s.toString();
    }

    private static String oneLine(String s) {
        return s == null ? "" : s.replace("\n", " ");
    }
}
