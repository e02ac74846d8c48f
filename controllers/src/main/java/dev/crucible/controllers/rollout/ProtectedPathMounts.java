package dev.crucible.controllers.rollout;

import java.util.ArrayList;
import java.util.List;

/**
 * Which protected paths can be enforced by the kernel: a literal path ({@code conftest.py}) or a whole
 * directory ({@code tests/**}) becomes a read-only subPath mount of the pristine copy over the agent's
 * workspace. Globs that match scattered files ({@code src/*_test.py}) cannot be mounted without also
 * freezing their neighbours; the verifier grades those from the pristine copy and hashes them instead.
 */
public final class ProtectedPathMounts {

    private ProtectedPathMounts() {
    }

    /** Workspace-relative paths to mount read-only, without duplicates or paths nested in others. */
    public static List<String> mountable(List<String> protectedPaths) {
        List<String> candidates = new ArrayList<>();
        if (protectedPaths == null) {
            return candidates;
        }
        for (String glob : protectedPaths) {
            String path = glob;
            if (path.endsWith("/**")) {
                path = path.substring(0, path.length() - 3);
            }
            while (path.startsWith("./")) {
                path = path.substring(2);
            }
            if (path.endsWith("/")) {
                path = path.substring(0, path.length() - 1);
            }
            if (path.isEmpty() || path.startsWith("/") || hasGlob(path) || path.equals("..")
                    || path.startsWith("../") || path.contains("/../")) {
                continue;
            }
            candidates.add(path);
        }
        List<String> result = new ArrayList<>();
        for (String p : candidates) {
            boolean nested = candidates.stream().anyMatch(o -> !o.equals(p) && p.startsWith(o + "/"));
            if (!nested && !result.contains(p)) {
                result.add(p);
            }
        }
        return result;
    }

    /** Volume mount names must be DNS labels; one per protected path, by position. */
    public static String subPathMountName(int i) {
        return "protected-" + i;
    }

    private static boolean hasGlob(String p) {
        return p.contains("*") || p.contains("?") || p.contains("[") || p.contains("{");
    }
}
