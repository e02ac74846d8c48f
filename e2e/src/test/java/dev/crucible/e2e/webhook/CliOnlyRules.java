package dev.crucible.e2e.webhook;

import dev.crucible.api.validation.ValidationError;
import java.util.List;
import java.util.function.Predicate;

/**
 * The rules {@code crucible validate} applies that a server-side dry run (API server, CRD schema, CEL,
 * and the admission webhook in its cluster context) cannot: each with the reason. The parity tier fails
 * on a manifest the CLI refuses and the server accepts unless every error the CLI gave matches one of
 * these.
 */
final class CliOnlyRules {

    record Rule(String name, String reason, Predicate<ValidationError> matches) {
    }

    static final List<Rule> RULES = List.of(
            new Rule("cross-document-reference",
                    "a Rollout must name an RLEnvironment among the given files (or be marked external); the cluster resolves it at run time",
                    e -> e.message().contains("is not among the given files")),
            new Rule("revert-needs-snapshots",
                    "hackPolicy.action: revert on the environment needs snapshotPolicy.intervalSeconds on the Rollout: two objects, only seen together in the files",
                    e -> e.message().contains("has hackPolicy.action: revert")),
            new Rule("duplicate-key",
                    "kubectl's YAML reading keeps the last of two equal keys silently; the CLI refuses the ambiguity",
                    e -> e.message().startsWith("duplicate key")),
            new Rule("local-files",
                    "a local run needs spec.workspace.path and hidden tests on this machine; the cluster never reads them",
                    e -> e.path().equals("spec.workspace.path") || e.path().startsWith("spec.verifier.hiddenTests.")),
            new Rule("yaml-limits",
                    "limits on file size, document size, nesting and alias expansion keep the CLI's memory bounded",
                    e -> e.message().contains("(limit") || e.message().contains("over the limit") || e.message().contains("than the limit")),
            new Rule("empty-file",
                    "a file with no object in it is almost always a mistake (kubectl says 'no objects passed')",
                    e -> e.message().startsWith("no YAML documents") || e.message().startsWith("only empty documents")));

    private CliOnlyRules() {
    }

    /** The rule that explains a CLI-only error, or null. */
    static Rule explain(ValidationError e) {
        return RULES.stream().filter(r -> r.matches().test(e)).findFirst().orElse(null);
    }
}
