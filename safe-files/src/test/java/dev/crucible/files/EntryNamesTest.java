package dev.crucible.files;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Names that are not valid UTF-8, made by a real shell (Java cannot name them): {@link BoundedRead} lists
 * them under escaped keys and reads, hashes and lists them by those keys (issue 34: before, a scan skipped
 * them as 'removed while listed', and everything in a folder so named).
 */
class EntryNamesTest {
    @TempDir
    Path ws;

    @Test
    void namesThatAreNotUtf8AreListedAndReadByTheirKeys() throws Exception {
        sh("printf one > \"$(printf 'bad\\377\\376.py')\"; mkdir \"$(printf 'd\\377\\033[31m')\";"
                + " printf two > \"$(printf 'd\\377\\033[31m/conftest.py')\"; printf three > 'lit\\xff.py'; printf four > \"$(printf 'caf\\303\\251.py')\"");
        BoundedRead r = BoundedRead.of(ws, "workspace");
        Map<String, BasicFileAttributes> tree = r.tree("", 100);
        assertThat(tree.keySet()).containsExactlyInAnyOrder("bad\\xff\\xfe.py", "d\\xff\u001b[31m", "d\\xff\u001b[31m/conftest.py",
                "lit\\x5cxff.py", "café.py");
        assertThat(text(r.read("bad\\xff\\xfe.py", 100))).isEqualTo("one");
        assertThat(text(r.read("d\\xff\u001b[31m/conftest.py", 100))).isEqualTo("two");
        assertThat(text(r.read("lit\\x5cxff.py", 100))).isEqualTo("three");
        assertThat(text(r.read("café.py", 100))).isEqualTo("four");
        assertThat(r.list("d\\xff\u001b[31m", 10)).containsOnlyKeys("conftest.py");
        assertThat(r.lstat("bad\\xff\\xfe.py").size()).isEqualTo(3);
        assertThat(r.sha256("bad\\xff\\xfe.py", 100)).isNotNull();
        assertThat(r.readMany(java.util.List.of("bad\\xff\\xfe.py", "d\\xff\u001b[31m/conftest.py"), 100).values())
                .allSatisfy(v -> assertThat(v).isInstanceOf(byte[].class));
        assertThat(r.read("bad\\xff.py", 100)).as("a key no entry has").isNull();
    }

    @Test
    void keysRoundTrip() {
        byte[][] names = {"plain.py".getBytes(StandardCharsets.UTF_8), {'a', (byte) 0xff, 'b'}, {(byte) 0xc3, '(', 'x'},
                {'\\', 'x', '4', '1', (byte) 0x80}, {(byte) 0xed, (byte) 0xa0, (byte) 0x80}, "é\\".getBytes(StandardCharsets.UTF_8)};
        for (byte[] n : names) {
            String key = EntryNames.escape(n);
            assertThat(EntryNames.unescape(key)).as(key).isEqualTo(n);
        }
    }

    private void sh(String script) throws Exception {
        assertThat(new ProcessBuilder("/bin/sh", "-c", script).directory(ws.toFile()).inheritIO().start().waitFor()).isZero();
        assertThat(Files.list(ws).count()).isEqualTo(4); // bad, the folder, lit, café
    }

    private static String text(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }
}
