package dev.crucible.cli.run;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;

/**
 * Copies {@code spec.workspace.path} for one attempt. Links are copied as links and never followed;
 * every {@code .git} (the folder's own history, nested repositories) is left out, since the agent gets
 * a fresh task repository instead; special files are skipped; and the copy never descends into the
 * folders in {@code exclude} (the output folder, the copy itself), so it cannot recurse into itself.
 */
final class WorkspaceCopy {
    private WorkspaceCopy() {}

    static void copy(Path src, Path dst, List<Path> exclude) throws IOException {
        Path from = src.toAbsolutePath().normalize();
        Path to = dst.toAbsolutePath().normalize();
        List<Path> skip = new java.util.ArrayList<>(exclude.stream().map(p -> p.toAbsolutePath().normalize()).toList());
        skip.add(to);
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                if (!dir.equals(from) && (dir.getFileName().toString().equals(".git") || skip.stream().anyMatch(dir::equals))) {
                    return FileVisitResult.SKIP_SUBTREE;
                }
                Files.createDirectories(to.resolve(from.relativize(dir).toString()));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                if (file.getFileName().toString().equals(".git") || attrs.isOther()) return FileVisitResult.CONTINUE; // a gitdir link file, a FIFO
                Files.copy(file, to.resolve(from.relativize(file).toString()), StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
