package dev.crucible.verifier.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.verifier.pristine.ProtectedPaths;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Host round 7, case 16: an agent made 3,000 hard links to one 60 MB file; the monitor's last scan read and hashed each
 * name on its own (180 GB), grading ran to its bound and an honest fix got reward 0. The names of one file are read once
 * per scan: the same hash for each, its content handed on with the first.
 */
class ChangeFeedHardLinksTest {
    @TempDir
    Path ws;

    @Test
    void theNamesOfOneFileAreReadOnce() throws Exception {
        byte[] data = new byte[512 << 10];
        new java.util.Random(7).nextBytes(data);
        Files.write(ws.resolve("data.bin"), data);
        Map<String, BasicFileAttributes> changed = new LinkedHashMap<>();
        changed.put("data.bin", attrs(ws.resolve("data.bin")));
        for (int i = 0; i < 50; i++) {
            Files.createLink(ws.resolve("l" + i + ".py"), ws.resolve("data.bin"));
            changed.put("l" + i + ".py", attrs(ws.resolve("l" + i + ".py")));
        }
        Files.write(ws.resolve("other.bin"), data); // the same bytes, another file: read on its own
        changed.put("other.bin", attrs(ws.resolve("other.bin")));
        List<String> withContent = new ArrayList<>();
        Map<String, String> hashes = new HashMap<>();
        MonitorObserver seen = new MonitorObserver() {
            @Override
            public void fileChanged(String path, String op, String type, long size, Instant modified, String sha256, byte[] content) {
                if (content != null) withContent.add(path);
            }
        };
        new ChangeFeed(seen).report(new TreeReads(ws, new ProtectedPaths(List.of())), changed, Set.of(), changed.keySet(), hashes);
        assertThat(withContent).as("read once per file, not once per name").containsExactly("data.bin", "other.bin");
        assertThat(hashes).hasSize(52);
        assertThat(hashes.values()).as("every name has the file's hash").containsOnly(hashes.get("data.bin"));
    }

    private static BasicFileAttributes attrs(Path p) throws Exception {
        return Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    }
}
