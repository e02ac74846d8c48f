package dev.crucible.cli.imports;

import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A Harbor (terminal-bench) task folder as harbor 0.25's {@code TaskPaths} and {@code TaskConfig} define it:
 * {@code task.toml}, {@code instruction.md}, {@code environment/} (a Dockerfile, or {@code environment.docker_image}),
 * {@code tests/} ({@code test.sh} and the pytest files it runs) and optionally {@code solution/solve.sh}.
 * Every refusal names the file and the field.
 */
record HarborTask(Path dir, String name, String instruction, Double verifierTimeoutSec, Double agentTimeoutSec,
        String dockerImage, Dockerfile dockerfile, String workdir, Number cpus, Long memoryMb, String networkMode,
        List<String> pytestFiles, boolean hasTestScript, Path solveScript) {

    /** Refused input: the message names the file and, where there is one, the field. */
    static final class InvalidTask extends Exception {
        InvalidTask(String message) {
            super(message);
        }
    }

    static HarborTask read(Path dir) throws InvalidTask, IOException {
        if (!Files.isDirectory(dir)) throw new InvalidTask(dir + ": not a folder (a Harbor task folder holds task.toml)");
        Path toml = dir.resolve("task.toml");
        if (!Files.isRegularFile(toml, LinkOption.NOFOLLOW_LINKS)) {
            throw new InvalidTask(toml + ": missing (every Harbor task has a task.toml)");
        }
        Map<String, Object> config;
        try {
            config = TomlReader.parse(toml.toString(), text(toml));
        } catch (TomlReader.TomlException e) {
            throw new InvalidTask(e.getMessage());
        }
        if (config.get("steps") instanceof List<?> steps && !steps.isEmpty()) {
            throw new InvalidTask(toml + ": steps: multi-step tasks are not imported (one instruction, one verifier)");
        }
        Map<String, Object> verifier = table(toml, config, "verifier");
        Map<String, Object> agent = table(toml, config, "agent");
        Map<String, Object> environment = table(toml, config, "environment");
        Map<String, Object> task = table(toml, config, "task");
        String os = string(toml, environment, "environment.os");
        if (os != null && !os.equalsIgnoreCase("linux")) throw new InvalidTask(toml + ": environment.os: only linux tasks are imported, not " + os);

        Path instructionFile = dir.resolve("instruction.md");
        if (!Files.isRegularFile(instructionFile, LinkOption.NOFOLLOW_LINKS)) {
            throw new InvalidTask(instructionFile + ": missing (the task's instruction, the agent's prompt)");
        }
        String instruction = text(instructionFile);
        if (instruction.isBlank()) throw new InvalidTask(instructionFile + ": empty (the task's instruction, the agent's prompt)");

        String image = string(toml, environment, "environment.docker_image");
        Path dockerfilePath = dir.resolve("environment/Dockerfile");
        Dockerfile dockerfile = null;
        if (Files.isRegularFile(dockerfilePath, LinkOption.NOFOLLOW_LINKS)) {
            dockerfile = Dockerfile.parse(dockerfilePath, text(dockerfilePath));
        } else if (image == null) {
            throw new InvalidTask(dockerfilePath + ": missing, and task.toml sets no environment.docker_image");
        }
        String workdir = string(toml, environment, "environment.workdir");
        if (workdir == null) workdir = dockerfile != null && dockerfile.workdir() != null ? dockerfile.workdir() : "/app";
        if (!workdir.startsWith("/")) throw new InvalidTask(toml + ": environment.workdir: not an absolute path: " + workdir);

        Path tests = dir.resolve("tests");
        if (!Files.isDirectory(tests, LinkOption.NOFOLLOW_LINKS)) throw new InvalidTask(tests + ": missing (test.sh and its tests)");
        List<String> pytestFiles = new ArrayList<>();
        try (Stream<Path> s = Files.walk(tests)) {
            for (Path p : s.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)).sorted().toList()) {
                String f = p.getFileName().toString();
                if (f.endsWith(".py") && (f.startsWith("test_") || f.endsWith("_test.py"))) pytestFiles.add(tests.relativize(p).toString());
            }
        }
        if (pytestFiles.isEmpty()) {
            throw new InvalidTask(tests + ": no pytest file (test_*.py); only tasks whose test.sh runs pytest are imported, "
                    + "since Crucible grades per test and reads no /logs/verifier/reward.txt");
        }
        Path solve = dir.resolve("solution/solve.sh");
        return new HarborTask(dir, taskName(dir, toml, task), instruction,
                number(toml, verifier, "verifier.timeout_sec"), number(toml, agent, "agent.timeout_sec"), image, dockerfile, workdir,
                (Number) numberOrNull(toml, environment, "environment.cpus"), integer(toml, environment, "environment.memory_mb"),
                networkMode(toml, environment), pytestFiles, Files.isRegularFile(tests.resolve("test.sh"), LinkOption.NOFOLLOW_LINKS),
                Files.isRegularFile(solve, LinkOption.NOFOLLOW_LINKS) ? solve : null);
    }

    /** A Kubernetes name from [task].name ("org/name": the name) or the folder's name. */
    private static String taskName(Path dir, Path toml, Map<String, Object> task) throws InvalidTask {
        String n = string(toml, task, "task.name");
        String base = n != null ? n.substring(n.lastIndexOf('/') + 1) : dir.toAbsolutePath().normalize().getFileName().toString();
        String k8s = base.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9-]+", "-").replaceAll("^-+|-+$", "");
        if (k8s.isEmpty()) throw new InvalidTask(toml + ": task.name: no usable name in '" + base + "'");
        return k8s.length() > 63 ? k8s.substring(0, 63).replaceAll("-+$", "") : k8s;
    }

    private static String networkMode(Path toml, Map<String, Object> env) throws InvalidTask {
        String mode = string(toml, env, "environment.network_mode");
        if (mode == null && env.get("allow_internet") instanceof Boolean b) mode = b ? "public" : "no-network";
        if (mode != null && !List.of("public", "no-network", "allowlist").contains(mode)) {
            throw new InvalidTask(toml + ": environment.network_mode: expected public, no-network or allowlist, not " + mode);
        }
        return mode == null ? "public" : mode;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> table(Path toml, Map<String, Object> config, String field) throws InvalidTask {
        Object v = config.get(field);
        if (v == null) return Map.of();
        if (!(v instanceof Map<?, ?>)) throw new InvalidTask(toml + ": " + field + ": expected a table");
        return (Map<String, Object>) v;
    }

    private static String string(Path toml, Map<String, Object> t, String field) throws InvalidTask {
        Object v = t.get(field.substring(field.indexOf('.') + 1));
        if (v == null) return null;
        if (!(v instanceof String s)) throw new InvalidTask(toml + ": " + field + ": expected a string, not " + v);
        return s;
    }

    private static Object numberOrNull(Path toml, Map<String, Object> t, String field) throws InvalidTask {
        Object v = t.get(field.substring(field.indexOf('.') + 1));
        if (v == null) return null;
        if (!(v instanceof Number n) || n.doubleValue() <= 0 || Double.isInfinite(n.doubleValue()) || Double.isNaN(n.doubleValue())) {
            throw new InvalidTask(toml + ": " + field + ": expected a positive number, not " + v);
        }
        return n;
    }

    private static Double number(Path toml, Map<String, Object> t, String field) throws InvalidTask {
        Object n = numberOrNull(toml, t, field);
        return n == null ? null : ((Number) n).doubleValue();
    }

    private static Long integer(Path toml, Map<String, Object> t, String field) throws InvalidTask {
        Object n = numberOrNull(toml, t, field);
        // the parser gives the smallest integer type that holds the value
        if (n != null && !(n instanceof Integer || n instanceof Long || n instanceof java.math.BigInteger)) {
            throw new InvalidTask(toml + ": " + field + ": expected a whole number, not " + n);
        }
        if (n instanceof java.math.BigInteger b && b.bitLength() > 63) throw new InvalidTask(toml + ": " + field + ": too large: " + n);
        return n == null ? null : ((Number) n).longValue();
    }

    static String text(Path file) throws InvalidTask, IOException {
        if (Files.size(file) > 4 << 20) throw new InvalidTask(file + ": over 4 MiB; not a task file");
        try {
            return Files.readString(file);
        } catch (MalformedInputException e) {
            throw new InvalidTask(file + ": not UTF-8 text");
        }
    }
}
