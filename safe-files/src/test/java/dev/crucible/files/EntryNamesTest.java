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

    @Test
    void aNameIsMadeFromItsBytesAndNothingElseIsMade() {
        for (int v = 1; v < 256; v++) {
            if (v == '/') continue;
            byte[] n = {'a', (byte) v, 'b'};
            assertThat(EntryNames.bytes(EntryNames.fromBytes(n))).as("byte %02x", v).isEqualTo(n);
        }
        byte[] invalid = {(byte) 0xed, (byte) 0xa0, (byte) 0x80, '%', '4', '1', ' '};
        assertThat(EntryNames.bytes(EntryNames.fromBytes(invalid))).isEqualTo(invalid);
        // no entry is called so: a key that spells one in escapes must never walk up or across
        for (byte[] bad : new byte[][] {{}, {'.'}, {'.', '.'}, {'a', '/', 'b'}, {'a', 0}}) assertThat(EntryNames.fromBytes(bad)).isNull();
    }

    @Test
    void anEscapedKeyThatSpellsDotDotOrASlashNamesNothing() throws Exception {
        sh("printf one > \"$(printf 'bad\\377\\376.py')\"; mkdir \"$(printf 'd\\377\\033[31m')\";"
                + " printf two > \"$(printf 'd\\377\\033[31m/conftest.py')\"; printf three > 'lit\\xff.py'; printf four > \"$(printf 'caf\\303\\251.py')\"");
        Files.writeString(ws.getParent().resolve("outside.txt"), "secret");
        BoundedRead r = BoundedRead.of(ws, "workspace");
        assertThat(r.read("d\\xff\u001b[31m/\\x2e\\x2e/\\x2e\\x2e/outside.txt", 100)).isNull();
        assertThat(r.read("\\x2e\\x2e/outside.txt", 100)).isNull();
        assertThat(r.read("d\\xff\u001b[31m\\x2fconftest.py", 100)).isNull();
        assertThat(r.read("bad\\xFF\\xfe.py", 100)).as("another spelling of the key").isNull();
    }

    @Test
    void aFolderOfManyUndecodableNamesIsReadByKeyWithoutListingItPerRead() throws Exception {
        // blind host round 5, B2: 30,000 such names; each read listed the folder again (quadratic, the CLI's heap filled)
        int n = 2000;
        assertThat(new ProcessBuilder("python3", "-c", "import os,sys\nfor i in range(int(sys.argv[1])):\n"
                + "    open(b'f%05d-' % i + bytes([0xff, 0xfe]) * 100, 'wb').write(b'%d' % i)", String.valueOf(n))
                .directory(ws.toFile()).inheritIO().start().waitFor()).isZero();
        BoundedRead r = BoundedRead.of(ws, "workspace");
        java.util.List<String> keys = new java.util.ArrayList<>(r.list("", n + 10).keySet());
        assertThat(keys).hasSize(n).allMatch(EntryNames::escaped);
        long t0 = System.nanoTime();
        for (String k : keys) assertThat(text(r.read(k, 100))).isEqualTo(String.valueOf(Integer.parseInt(k.substring(1, 6)))); // one walk each, as scans do
        System.out.printf("read %d undecodable names one by one in %d ms%n", n, (System.nanoTime() - t0) / 1_000_000);
    }

    private void sh(String script) throws Exception {
        assertThat(new ProcessBuilder("/bin/sh", "-c", script).directory(ws.toFile()).inheritIO().start().waitFor()).isZero();
        assertThat(Files.list(ws).count()).isEqualTo(4); // bad, the folder, lit, café
    }

    private static String text(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }
}
