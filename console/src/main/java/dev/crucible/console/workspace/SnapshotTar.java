package dev.crucible.console.workspace;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Reads a snapshot's workspace.tar (GNU tar's format, as the snapshot engine writes it) without extracting it: the
 * members' headers (seeking past their data, so listing a large archive reads only its headers) and the head of one
 * regular member. Nothing is written to disk and no link is followed: a symlink, hard link, FIFO or device is a row
 * naming what it is. The archive holds the agent's files, so every field is bounded: a long name at most
 * {@link #MAX_NAME} bytes, at most {@link #MAX_MEMBERS} members listed, a member's content read to {@link #MAX_CONTENT}.
 */
public final class SnapshotTar {
    static final int BLOCK = 512;
    public static final int MAX_MEMBERS = 5000;
    public static final int MAX_NAME = 64 << 10;
    public static final int MAX_CONTENT = 256 << 10;
    /** A pax header larger than this is not a header tar itself writes: refused, not read into memory. */
    static final int MAX_PAX = 1 << 20;

    /** {@code type}: file, dir, symlink, hardlink, fifo, char-device, block-device, sparse or other ('X'). */
    public record Member(String path, String type, long size, String link, int mode, long dataOffset, long stored) {}

    /** {@code more}: whether members past {@link #MAX_MEMBERS} (or past the filter's) were left out. */
    public record Listing(List<Member> members, boolean more, List<String> problems) {}

    private SnapshotTar() {}

    /** The members {@code keep} accepts, in the archive's order, at most {@code max}. */
    public static Listing list(Path tar, Predicate<Member> keep, int max) throws IOException {
        List<Member> out = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        boolean more = false;
        try (FileChannel ch = FileChannel.open(tar, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            long pos = 0;
            long end = ch.size();
            String longName = null;
            String longLink = null;
            String paxPath = null;
            String paxLink = null;
            Long paxSize = null;
            while (pos + BLOCK <= end) {
                ByteBuffer h = read(ch, pos, BLOCK);
                if (zero(h)) break;
                if (!checksumOk(h)) {
                    problems.add(tar.getFileName() + ": a damaged header at byte " + pos + "; the members after it are not listed");
                    break;
                }
                char type = (char) h.get(156);
                long size = number(h, 124, 12);
                long stored = size;
                if (size < 0 || pos + BLOCK + size > end) {
                    problems.add(tar.getFileName() + ": a member at byte " + pos + " runs past the end of the archive (truncated?)");
                    break;
                }
                long data = pos + BLOCK;
                pos = data + (size + BLOCK - 1) / BLOCK * BLOCK;
                switch (type) {
                    case 'L' -> { longName = string(ch, data, size); continue; }
                    case 'K' -> { longLink = string(ch, data, size); continue; }
                    case 'x' -> {
                        if (size > MAX_PAX) throw new IOException(tar.getFileName() + ": a pax header of " + size + " bytes at byte " + (data - BLOCK));
                        for (String rec : pax(read(ch, data, (int) size))) {
                            if (rec.startsWith("path=")) paxPath = rec.substring(5);
                            else if (rec.startsWith("linkpath=")) paxLink = rec.substring(9);
                            else if (rec.startsWith("size=")) {
                                try { paxSize = Long.parseLong(rec.substring(5)); } catch (NumberFormatException e) { paxSize = null; }
                            }
                        }
                        continue;
                    }
                    case 'g' -> { continue; }
                    default -> { }
                }
                String name = longName != null ? longName : paxPath != null ? paxPath : ustarName(h);
                String link = longLink != null ? longLink : paxLink != null ? paxLink : cstr(h, 157, 100);
                if (paxSize != null) size = paxSize;
                if (type == 'S') size = number(h, 483, 12); // GNU sparse: the file's real size; its stored data is a map, not the file
                longName = longLink = paxPath = paxLink = null;
                paxSize = null;
                Member m = new Member(clean(name), typeName(type), size, type == '1' || type == '2' ? link : null,
                        (int) Math.max(0, number(h, 100, 8)), data, stored);
                if (!keep.test(m)) continue;
                if (out.size() == max) {
                    more = true;
                    break;
                }
                out.add(m);
            }
        }
        return new Listing(List.copyOf(out), more, List.copyOf(problems));
    }

    /** The first {@code max} bytes of a regular member (never a link's target, a FIFO, a device or a sparse map). */
    public static byte[] head(Path tar, Member m, int max) throws IOException {
        if (!"file".equals(m.type())) throw new IllegalArgumentException(m.path() + " is a " + m.type() + ", not a regular file");
        try (FileChannel ch = FileChannel.open(tar, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            ByteBuffer b = read(ch, m.dataOffset(), (int) Math.min(max, m.stored()));
            byte[] out = new byte[b.remaining()];
            b.get(out);
            return out;
        }
    }

    static String typeName(char t) {
        return switch (t) {
            case '0', '\0', '7' -> "file";
            case '1' -> "hardlink";
            case '2' -> "symlink";
            case '3' -> "char-device";
            case '4' -> "block-device";
            case '5' -> "dir";
            case '6' -> "fifo";
            case 'S' -> "sparse";
            default -> "other";
        };
    }

    /** tar's "./a/b/" → "a/b"; the archive's root "." → "". */
    static String clean(String name) {
        String n = name;
        while (n.startsWith("./")) n = n.substring(2);
        if (n.equals(".")) n = "";
        while (n.endsWith("/")) n = n.substring(0, n.length() - 1);
        return n;
    }

    private static ByteBuffer read(FileChannel ch, long pos, int len) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(len);
        while (b.hasRemaining()) {
            int n = ch.read(b, pos + b.position());
            if (n < 0) throw new IOException("the archive ends at byte " + (pos + b.position()) + ", inside a member");
        }
        return b.flip();
    }

    private static String string(FileChannel ch, long pos, long size) throws IOException {
        ByteBuffer b = read(ch, pos, (int) Math.min(size, MAX_NAME));
        byte[] a = new byte[b.remaining()];
        b.get(a);
        int n = 0;
        while (n < a.length && a[n] != 0) n++;
        return new String(a, 0, n, StandardCharsets.UTF_8);
    }

    /** pax records "LEN key=value\n", values as UTF-8. */
    private static List<String> pax(ByteBuffer b) {
        String s = StandardCharsets.UTF_8.decode(b).toString();
        List<String> out = new ArrayList<>();
        for (String line : s.split("\n")) {
            int sp = line.indexOf(' ');
            if (sp > 0) out.add(line.substring(sp + 1));
        }
        return out;
    }

    private static String ustarName(ByteBuffer h) {
        String name = cstr(h, 0, 100);
        boolean ustar = "ustar".equals(cstr(h, 257, 5)) && h.get(262) == 0; // POSIX ustar, not GNU's "ustar  "
        String prefix = ustar ? cstr(h, 345, 155) : "";
        return prefix.isEmpty() ? name : prefix + "/" + name;
    }

    private static String cstr(ByteBuffer h, int off, int len) {
        int n = 0;
        while (n < len && h.get(off + n) != 0) n++;
        byte[] a = new byte[n];
        h.get(off, a);
        return new String(a, StandardCharsets.UTF_8);
    }

    /** An octal field, or GNU's base-256 (high bit set) for large numbers; -1 when it is neither. */
    static long number(ByteBuffer h, int off, int len) {
        if ((h.get(off) & 0x80) != 0) {
            long v = h.get(off) & 0x7f;
            for (int i = 1; i < len; i++) {
                if (v > (Long.MAX_VALUE >> 8)) return -1;
                v = (v << 8) | (h.get(off + i) & 0xff);
            }
            return v;
        }
        String s = cstr(h, off, len).strip();
        if (s.isEmpty()) return 0;
        try {
            return Long.parseLong(s, 8);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static boolean zero(ByteBuffer h) {
        for (int i = 0; i < BLOCK; i++) if (h.get(i) != 0) return false;
        return true;
    }

    private static boolean checksumOk(ByteBuffer h) {
        long want = number(h, 148, 8);
        long sum = 0;
        for (int i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? ' ' : (h.get(i) & 0xff);
        return want == sum;
    }
}
