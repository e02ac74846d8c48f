package dev.crucible.snapshot.store;

import dev.crucible.snapshot.client.store.FileDigest;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** sha256 of every file under a snapshot directory, and verification against a manifest. */
public final class DirectoryDigests {

    private DirectoryDigests() {
    }

    /** Digests of all files under {@code dir}, keyed by '/'-separated relative path, skipping top-level names in {@code skip}. */
    public static Map<String, FileDigest> compute(Path dir, Set<String> skip) {
        Map<String, FileDigest> out = new TreeMap<>();
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) {
                    if (!d.equals(dir) && d.getParent().equals(dir) && skip.contains(d.getFileName().toString())) {
                        return FileVisitResult.SKIP_SUBTREE;
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) throws IOException {
                    String rel = dir.relativize(f).toString().replace('\\', '/');
                    if (f.getParent().equals(dir) && skip.contains(f.getFileName().toString())) {
                        return FileVisitResult.CONTINUE;
                    }
                    if (attrs.isSymbolicLink()) {
                        out.put(rel, FileDigest.link(Files.readSymbolicLink(f).toString()));
                    } else if (attrs.isRegularFile()) {
                        out.put(rel, FileDigest.file(attrs.size(), sha256(f)));
                    }
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot checksum " + dir, e);
        }
        return out;
    }

    /** Returns a description of the first mismatch, or null when every recorded file matches. */
    public static String firstMismatch(Path dir, Map<String, FileDigest> expected) {
        for (Map.Entry<String, FileDigest> e : expected.entrySet()) {
            Path f = ContainedPaths.resolve(dir, e.getKey(), "manifest file");
            FileDigest want = e.getValue();
            try {
                if (want.linkTarget() != null) {
                    if (!Files.isSymbolicLink(f) || !Files.readSymbolicLink(f).toString().equals(want.linkTarget())) {
                        return e.getKey() + ": symlink changed";
                    }
                    continue;
                }
                if (!Files.isRegularFile(f)) {
                    return e.getKey() + ": missing";
                }
                if (Files.size(f) != want.size()) {
                    return e.getKey() + ": size " + Files.size(f) + " != " + want.size();
                }
                if (!sha256(f).equals(want.sha256())) {
                    return e.getKey() + ": sha256 mismatch";
                }
            } catch (IOException ex) {
                return e.getKey() + ": " + ex.getMessage();
            }
        }
        return null;
    }

    /**
     * A file or link under {@code dir} that the manifest does not list (skipping top-level names
     * in {@code skip}), or null: an image added after sealing (a new pages-N.img) would be read
     * by CRIU without ever being hashed.
     */
    public static String firstUnlisted(Path dir, Map<String, FileDigest> expected, Set<String> skip) {
        String[] found = new String[1];
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) {
                    if (!d.equals(dir) && d.getParent().equals(dir) && skip.contains(d.getFileName().toString())) {
                        return FileVisitResult.SKIP_SUBTREE;
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) {
                    if (f.getParent().equals(dir) && skip.contains(f.getFileName().toString())) {
                        return FileVisitResult.CONTINUE;
                    }
                    String rel = dir.relativize(f).toString().replace('\\', '/');
                    if (!expected.containsKey(rel)) {
                        found[0] = rel + ": not in the manifest";
                        return FileVisitResult.TERMINATE;
                    }
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            return dir + ": " + e.getMessage();
        }
        return found[0];
    }

    public static String sha256(Path f) throws IOException {
        MessageDigest md;
        try {
            md = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        byte[] buf = new byte[1 << 20];
        try (InputStream in = Files.newInputStream(f)) {
            int n;
            while ((n = in.read(buf)) > 0) {
                md.update(buf, 0, n);
            }
        }
        return HexFormat.of().formatHex(md.digest());
    }
}
