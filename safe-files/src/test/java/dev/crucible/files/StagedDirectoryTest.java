package dev.crucible.files;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StagedDirectoryTest {
    @TempDir
    Path tmp;

    @Test
    void besidePublishesByRenameAndAFailureLeavesNothing() throws Exception {
        Path target = tmp.resolve("out");
        try (StagedDirectory s = StagedDirectory.beside(target)) {
            Files.writeString(s.path().resolve("a"), "1");
            // no publish: a failure part-way
        }
        assertThat(target).doesNotExist();
        try (var l = Files.list(tmp)) {
            assertThat(l).isEmpty();
        }
        Files.createDirectory(target);
        try (StagedDirectory s = StagedDirectory.beside(target)) {
            Files.writeString(s.path().resolve("a"), "1");
            s.publish();
        }
        assertThat(target.resolve("a")).hasContent("1");
        try (var l = Files.list(tmp)) {
            assertThat(l).containsExactly(target);
        }
    }

    @Test
    void insideKeepsTheTargetDirectoryAndItsEmptinessOnFailure() throws Exception {
        Path target = Files.createDirectory(tmp.resolve("volume"));
        Object inode = Files.readAttributes(target, java.nio.file.attribute.BasicFileAttributes.class).fileKey();
        try (StagedDirectory s = StagedDirectory.inside(target)) {
            Files.createDirectories(s.path().resolve("d"));
            Files.writeString(s.path().resolve("d/f"), "x");
        }
        try (var l = Files.list(target)) {
            assertThat(l).isEmpty();
        }
        try (StagedDirectory s = StagedDirectory.inside(target)) {
            Files.createDirectories(s.path().resolve("d"));
            Files.writeString(s.path().resolve("d/f"), "x");
            s.publish();
        }
        assertThat(target.resolve("d/f")).hasContent("x");
        try (var l = Files.list(target)) {
            assertThat(l).hasSize(1);
        }
        assertThat(Files.readAttributes(target, java.nio.file.attribute.BasicFileAttributes.class).fileKey()).isEqualTo(inode);
    }

    @Test
    void deleteNeverFollowsALink() throws Exception {
        Path outside = Files.createDirectory(tmp.resolve("outside"));
        Files.writeString(outside.resolve("keep"), "k");
        Path tree = Files.createDirectory(tmp.resolve("tree"));
        Files.createSymbolicLink(tree.resolve("l"), outside);
        TreeDelete.delete(tree);
        assertThat(tree).doesNotExist();
        assertThat(outside.resolve("keep")).hasContent("k");
    }
}
