package dev.crucible.cli.run;

import dev.crucible.contract.SpecDefaults;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.crucible.api.v1alpha1.common.ObjectRef;
import dev.crucible.api.v1alpha1.environment.RLEnvironmentSpec;
import dev.crucible.api.v1alpha1.rollout.AgentSpec;
import dev.crucible.api.v1alpha1.rollout.RolloutMode;
import dev.crucible.api.v1alpha1.rollout.RolloutSpec;
import dev.crucible.api.validation.Manifest;
import dev.crucible.api.validation.ManifestReader;
import dev.crucible.api.validation.ManifestValidator;
import dev.crucible.api.validation.ValidationError;
import dev.crucible.verifier.Environment;
import dev.crucible.verifier.config.ConfigException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code crucible run} was given, validated: the environments by name and the rollouts to run.
 * Validation is the same as {@code crucible validate} (schema, CEL, cross-references) plus the
 * verifier's own reading of each environment, so anything that would fail later fails here, as
 * "invalid input", naming the file and field.
 */
public record RunInputs(Map<String, EnvironmentDoc> environments, List<RolloutDoc> rollouts) {

    private static final ObjectMapper MAPPER = new ObjectMapper(new YAMLFactory())
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    /** An RLEnvironment document: its API spec (workspace, source, setup env, band) and the verifier's view of it. */
    public record EnvironmentDoc(String name, Path file, RLEnvironmentSpec spec, Environment verifierEnv) {
        public Path baseDir() { return verifierEnv.baseDir(); }
    }

    /**
     * A Rollout document (or one made up for an environment given alone). {@code labels}: its metadata.labels (string
     * values), copied into result.json so the console can filter by them as it does a Rollout's over the cluster.
     */
    public record RolloutDoc(String name, String file, RolloutSpec spec, EnvironmentDoc environment, Map<String, String> labels) {
        public RolloutDoc(String name, String file, RolloutSpec spec, EnvironmentDoc environment) {
            this(name, file, spec, environment, Map.of());
        }

        public boolean interactive() { return spec.mode == RolloutMode.INTERACTIVE; }

        /** The task prompt (empty when the environment has none). */
        public String prompt() {
            var env = environment.spec();
            return env.task == null || env.task.prompt == null ? "" : env.task.prompt;
        }

        /** The rollout's deadline: {@code limits.maxDurationSeconds}, one hour by default (as in a cluster). */
        public long deadlineSeconds() {
            return spec.limits == null || spec.limits.maxDurationSeconds == null ? SpecDefaults.MAX_DURATION_SECONDS : spec.limits.maxDurationSeconds;
        }
    }

    /** A manifest's metadata.labels with scalar values (the validator checks their syntax); empty when it has none. */
    private static Map<String, String> labels(Manifest m) {
        Map<String, String> out = new java.util.TreeMap<>();
        m.body().path("metadata").path("labels").fields().forEachRemaining(e -> {
            if (e.getValue().isValueNode() && !e.getValue().isNull()) out.put(e.getKey(), e.getValue().asText());
        });
        return java.util.Collections.unmodifiableMap(out);
    }

    /** Bad input: each line names the file, document, field and problem. */
    public static final class InvalidInput extends Exception {
        private final List<String> lines;

        public InvalidInput(List<String> lines) {
            super(String.join("\n", lines));
            this.lines = List.copyOf(lines);
        }

        public List<String> lines() { return lines; }
    }

    /**
     * Validates and loads. {@code agentCmd} (from {@code --agent-cmd}) makes every rollout embedded with
     * that command; without any Rollout document each environment gets one rollout: embedded when an
     * agent command was given, interactive otherwise.
     */
    public static RunInputs load(List<Path> given, String agentCmd) throws InvalidInput {
        return load(given, agentCmd, null);
    }

    /** As {@link #load(List, String)}, for a run writing into {@code outDir}: a workspace holding it is invalid input. */
    public static RunInputs load(List<Path> given, String agentCmd, Path outDir) throws InvalidInput {
        List<Path> paths = topLevelManifests(given);
        List<ValidationError> errors = new ManifestValidator().validatePaths(paths, outDir);
        if (!errors.isEmpty()) throw new InvalidInput(errors.stream().map(ValidationError::toString).toList());
        ManifestReader.Result read = new ManifestReader().read(paths);
        Map<String, Integer> docsPerFile = new LinkedHashMap<>();
        read.manifests().forEach(m -> docsPerFile.merge(m.file(), 1, Integer::sum));

        Map<String, EnvironmentDoc> envs = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        for (Manifest m : read.manifests()) {
            if (!"RLEnvironment".equals(m.kind())) continue;
            try {
                envs.put(m.name(), environment(m, docsPerFile.get(m.file()) == 1));
            } catch (ConfigException e) {
                problems.add(e.getMessage());
            } catch (Exception e) {
                problems.add(where(m) + "spec: " + e.getMessage());
            }
        }
        List<RolloutDoc> rollouts = new ArrayList<>();
        for (Manifest m : read.manifests()) {
            if (!"Rollout".equals(m.kind())) continue;
            RolloutSpec spec;
            try {
                spec = MAPPER.treeToValue(m.body().get("spec"), RolloutSpec.class);
            } catch (Exception e) {
                problems.add(where(m) + "spec: " + e.getMessage());
                continue;
            }
            EnvironmentDoc env = envs.get(spec.environmentRef.name);
            if (env == null) {
                problems.add(where(m) + "spec.environmentRef.name: RLEnvironment " + spec.environmentRef.name
                        + " is not among the files given to crucible run (pass its manifest too)");
                continue;
            }
            rollouts.add(new RolloutDoc(m.name(), m.file(), overridden(spec, agentCmd), env, labels(m)));
        }
        if (read.manifests().stream().noneMatch(m -> "Rollout".equals(m.kind()))) {
            for (EnvironmentDoc env : envs.values()) {
                RolloutSpec spec = new RolloutSpec();
                spec.environmentRef = new ObjectRef(env.name());
                spec.mode = agentCmd == null ? RolloutMode.INTERACTIVE : RolloutMode.EMBEDDED;
                rollouts.add(new RolloutDoc(env.name() + "-local", env.file().toString(), overridden(spec, agentCmd), env));
            }
        }
        for (RolloutDoc r : rollouts) checkRunnableLocally(r, problems);
        if (read.manifests().isEmpty()) problems.add(given + ": (file): no YAML documents found (a folder is read for its own *.yaml files)");
        else if (rollouts.isEmpty() && problems.isEmpty()) problems.add(given + ": (file): no RLEnvironment or Rollout to run");
        if (!problems.isEmpty()) throw new InvalidInput(problems.stream().distinct().toList());
        return new RunInputs(envs, rollouts);
    }

    /**
     * A folder stands for its own *.yaml / *.yml files, not its subfolders (as {@code kubectl apply -f DIR}):
     * the workspace beside the manifests holds YAML of its own (CI workflows, configs) that is not ours.
     */
    static List<Path> topLevelManifests(List<Path> given) {
        List<Path> out = new ArrayList<>();
        for (Path p : given) {
            if (!java.nio.file.Files.isDirectory(p)) {
                out.add(p);
                continue;
            }
            try (var files = java.nio.file.Files.list(p)) {
                files.filter(java.nio.file.Files::isRegularFile).filter(f -> f.toString().endsWith(".yaml") || f.toString().endsWith(".yml"))
                        .sorted().forEach(out::add);
            } catch (java.io.IOException e) {
                out.add(p); // the validator reports why it cannot be listed
            }
        }
        return out;
    }

    private static EnvironmentDoc environment(Manifest m, boolean aloneInFile) throws Exception {
        RLEnvironmentSpec spec = MAPPER.treeToValue(m.body().get("spec"), RLEnvironmentSpec.class);
        Path file = Path.of(m.file()).toAbsolutePath().normalize();
        // A file of one document is loaded as a file, so the monitor also guards it as a grader file.
        Environment env = aloneInFile ? Environment.load(file)
                : Environment.of(dev.crucible.verifier.config.ManifestReader.parse(MAPPER.writeValueAsString(m.body()),
                        m.file() + ":" + m.document()), file.getParent(), m.name());
        return new EnvironmentDoc(m.name(), file, spec, env);
    }

    /** --agent-cmd replaces the rollout's agent and makes it embedded. */
    private static RolloutSpec overridden(RolloutSpec spec, String agentCmd) {
        if (agentCmd == null) return spec;
        spec.mode = RolloutMode.EMBEDDED;
        AgentSpec a = spec.agent == null ? new AgentSpec() : spec.agent;
        a.command = List.of("/bin/sh", "-c", agentCmd);
        spec.agent = a;
        return spec;
    }

    /** What a cluster can run but this machine cannot: an environment with neither a local workspace nor a local repository. */
    private static void checkRunnableLocally(RolloutDoc r, List<String> problems) {
        RLEnvironmentSpec s = r.environment().spec();
        String at = r.environment().file() + ": RLEnvironment/" + r.environment().name() + ": ";
        boolean hasWorkspace = s.workspace != null && s.workspace.path != null;
        if (!hasWorkspace && s.source == null) {
            problems.add(at + "spec.workspace.path: crucible run needs a local workspace or a spec.source repository "
                    + "(an image-only environment runs in a cluster)");
        } else if (!hasWorkspace && SourceCheckout.isRemote(s.source.repo)) {
            problems.add(at + "spec.source.repo: crucible run needs a local repository path, got " + s.source.repo
                    + " (clone it first and point repo at the clone)");
        } else if (!hasWorkspace && !java.nio.file.Files.isDirectory(r.environment().baseDir().resolve(s.source.repo))) {
            problems.add(at + "spec.source.repo: no such directory " + r.environment().baseDir().resolve(s.source.repo));
        } else if (hasWorkspace && !java.nio.file.Files.isDirectory(r.environment().baseDir().resolve(s.workspace.path))) {
            problems.add(at + "spec.workspace.path: no such directory " + r.environment().baseDir().resolve(s.workspace.path));
        }
        if (r.spec().mode == RolloutMode.EMBEDDED && (r.spec().agent == null || r.spec().agent.command == null)) {
            problems.add(r.file() + ": Rollout/" + r.name() + ": spec.agent.command: an embedded rollout needs a command (or pass --agent-cmd)");
        }
    }

    private static String where(Manifest m) {
        return m.file() + ":" + m.document() + ": " + m.kind() + "/" + m.name() + ": ";
    }
}
