package dev.crucible.files;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Folders nested past PATH_MAX (rt34 deep-dirs: 3000 levels, made by a real process with mkdirat): a tree
 * walk goes down to its depth bound and answers. Before, the walk's recursion overflowed the worker's
 * 1 MiB stack near 1000 levels, and the StackOverflowError went up through the final scan into the
 * attempt, which ended without a result.json.
 */
class DeepTreeTest {
    private Path dir;

    @AfterEach
    void remove() throws Exception {
        // GNU rm walks by descriptors; Java's recursive delete fails past PATH_MAX
        if (dir != null) new ProcessBuilder("rm", "-rf", dir.toString()).inheritIO().start().waitFor();
    }

    @Test
    @Timeout(120)
    void aTreeDeeperThanPathMaxIsWalkedToTheBoundWithoutAnError() throws Exception {
        dir = Files.createTempDirectory("deep-tree-");
        // by descriptors, as the agent did: a shell's cd gives up past PATH_MAX
        String py = "import os\nfd = os.open('.', os.O_RDONLY)\nfor i in range(3000):\n    os.mkdir('dd', dir_fd=fd)\n"
                + "    n = os.open('dd', os.O_RDONLY, dir_fd=fd); os.close(fd); fd = n\n"
                + "f = os.open('bottom.py', os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd); os.write(f, b'import os\\n'); os.close(f)\n";
        Process p = new ProcessBuilder("python3", "-c", py).directory(dir.toFile()).inheritIO().start();
        assertThat(p.waitFor()).isZero();
        Map<String, BasicFileAttributes> tree = BoundedRead.of(dir, "workspace").tree("", 1_000_000);
        assertThat(tree).isNotNull();
        int deepest = tree.keySet().stream().mapToInt(k -> k.split("/").length).max().orElse(0);
        System.out.println(tree.size() + " entries, deepest " + deepest);
        assertThat(deepest).isGreaterThanOrEqualTo(2000);
    }
}
