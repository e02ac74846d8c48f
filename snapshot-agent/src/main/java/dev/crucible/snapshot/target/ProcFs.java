package dev.crucible.snapshot.target;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** The few /proc reads the agent needs, parsed defensively (comm may contain spaces and ')'). */
public final class ProcFs {

    private static final Path PROC = Path.of("/proc");

    private ProcFs() {
    }

    public static String stat(long pid) {
        try {
            return Files.readString(PROC.resolve(Long.toString(pid)).resolve("stat"));
        } catch (NoSuchFileException e) {
            throw new NoSuchProcessException(pid);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Fields after "(comm)": index 0 is the state (field 3 of proc(5)). */
    private static String[] fieldsAfterComm(long pid) {
        String s = stat(pid);
        return s.substring(s.lastIndexOf(')') + 2).trim().split(" ");
    }

    public static long startTime(long pid) {
        return Long.parseLong(fieldsAfterComm(pid)[19]);
    }

    /** One-letter state: R, S, D, T (stopped), t (traced), Z … */
    public static char state(long pid) {
        return fieldsAfterComm(pid)[0].charAt(0);
    }

    public static long parentPid(long pid) {
        return Long.parseLong(fieldsAfterComm(pid)[1]);
    }

    public static String comm(long pid) {
        try {
            return Files.readString(PROC.resolve(Long.toString(pid)).resolve("comm")).strip();
        } catch (NoSuchFileException e) {
            throw new NoSuchProcessException(pid);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static boolean exists(long pid) {
        return Files.exists(PROC.resolve(Long.toString(pid)));
    }

    /** The NSpid line of /proc/PID/status: host pid first, innermost namespace pid last. */
    public static List<Long> nsPids(long pid) {
        for (String line : lines(PROC.resolve(Long.toString(pid)).resolve("status"), pid)) {
            if (line.startsWith("NSpid:")) {
                List<Long> out = new ArrayList<>();
                for (String p : line.substring(6).trim().split("\\s+")) {
                    out.add(Long.parseLong(p));
                }
                return out;
            }
        }
        return List.of(pid);
    }

    /** Direct children of every thread of {@code pid} (needs CONFIG_PROC_CHILDREN, which CRIU needs too). */
    public static List<Long> children(long pid) {
        List<Long> out = new ArrayList<>();
        Path tasks = PROC.resolve(Long.toString(pid)).resolve("task");
        try (Stream<Path> ts = Files.list(tasks)) {
            for (Path t : (Iterable<Path>) ts::iterator) {
                try {
                    String s = Files.readString(t.resolve("children")).trim();
                    if (!s.isEmpty()) {
                        for (String c : s.split("\\s+")) {
                            out.add(Long.parseLong(c));
                        }
                    }
                } catch (NoSuchFileException ignored) {
                    // thread exited meanwhile
                }
            }
        } catch (NoSuchFileException e) {
            throw new NoSuchProcessException(pid);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    /** The cgroup v2 path (the "0::" line) relative to the cgroup2 mount, e.g. "/kubepods.slice/…". */
    public static String cgroupV2Path(long pid) {
        for (String line : lines(PROC.resolve(Long.toString(pid)).resolve("cgroup"), pid)) {
            if (line.startsWith("0::")) {
                return line.substring(3);
            }
        }
        return null;
    }

    public static List<String> lines(Path file, long pid) {
        try {
            return Files.readAllLines(file);
        } catch (NoSuchFileException e) {
            throw new NoSuchProcessException(pid);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
