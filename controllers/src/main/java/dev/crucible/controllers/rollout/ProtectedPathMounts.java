package dev.crucible.controllers.rollout;

import java.util.ArrayList;
import java.util.List;

/**
 * Which protected paths the kernel enforces: a whole directory ({@code tests/**} or {@code bench/}) becomes a
 * read-only subPath mount of the pristine copy over the agent's workspace. A single path ({@code conftest.py})
 * is left to the verifier, as are globs that match scattered files ({@code src/*_test.py}): it grades those
 * from the pristine copy and its monitor reports any change to them as a finding. The operator cannot see the
 * image's tree, and the kubelet creates a missing subPath source as a directory: a mounted {@code conftest.py}
 * the image lacks became a read-only directory, so an agent's attempt to plant one failed silently instead of
 * being reported (the local runtime, which binds only existing files, reported it), and a
 * {@code pyproject.toml}, judged by its test sections only, was frozen whole.
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
            } else if (!path.endsWith("/")) {
                continue; // a single path: the verifier's, see above
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
