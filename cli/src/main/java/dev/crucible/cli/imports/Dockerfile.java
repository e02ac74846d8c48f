package dev.crucible.cli.imports;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What the importer needs from a task's Dockerfile: the final WORKDIR (the agent's working directory, Harbor's
 * default cwd) and the COPY/ADD lines that put files of the build context there, which become the local
 * workspace. Everything else (RUN, FROM) stays in the image, built from the copied Dockerfile for the cluster.
 */
record Dockerfile(String workdir, List<Copy> copies) {
    /** One COPY/ADD of build-context sources to an absolute destination, as resolved against the WORKDIR then. */
    record Copy(int line, List<String> sources, String dest, boolean destIsDir) {}

    static Dockerfile parse(Path file, String text) throws HarborTask.InvalidTask {
        String workdir = null;
        List<Copy> copies = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            int first = i;
            StringBuilder sb = new StringBuilder(lines[i].strip());
            while (sb.length() > 0 && sb.charAt(sb.length() - 1) == '\\' && i + 1 < lines.length) {
                sb.setLength(sb.length() - 1);
                sb.append(' ').append(lines[++i].strip());
            }
            String line = sb.toString().strip();
            if (line.isEmpty() || line.startsWith("#")) continue;
            String[] words = line.split("\\s+", 2);
            String op = words[0].toUpperCase(java.util.Locale.ROOT);
            String args = words.length > 1 ? words[1].strip() : "";
            if (op.equals("FROM")) {
                workdir = null;  // a new stage starts from its image's own working directory
                copies.clear();
            } else if (op.equals("WORKDIR")) {
                if (args.isEmpty()) throw new HarborTask.InvalidTask(file + ":" + (first + 1) + ": WORKDIR without a path");
                workdir = absolute(workdir, unquote(args));
            } else if (op.equals("COPY") || op.equals("ADD")) {
                List<String> parts = new ArrayList<>(args.startsWith("[") ? jsonForm(file, first, args) : Arrays.asList(args.split("\\s+")));
                boolean fromStage = parts.stream().anyMatch(p -> p.startsWith("--from="));
                parts.removeIf(p -> p.startsWith("--"));
                if (fromStage || parts.size() < 2) continue;  // from another image: not in the build context
                String dest = parts.remove(parts.size() - 1);
                copies.add(new Copy(first + 1, List.copyOf(parts), absolute(workdir, dest), dest.endsWith("/") || parts.size() > 1));
            }
        }
        return new Dockerfile(workdir, List.copyOf(copies));
    }

    private static String absolute(String workdir, String path) {
        String p = path.startsWith("/") ? path : (workdir == null ? "/" : workdir) + "/" + path;
        return Path.of(p).normalize().toString();
    }

    private static String unquote(String s) {
        return s.length() >= 2 && (s.startsWith("\"") && s.endsWith("\"") || s.startsWith("'") && s.endsWith("'")) ? s.substring(1, s.length() - 1) : s;
    }

    private static List<String> jsonForm(Path file, int line, String args) throws HarborTask.InvalidTask {
        try {
            return Arrays.asList(new com.fasterxml.jackson.databind.ObjectMapper().readValue(args, String[].class));
        } catch (java.io.IOException e) {
            throw new HarborTask.InvalidTask(file + ":" + (line + 1) + ": COPY's JSON form is not an array of strings");
        }
    }
}
