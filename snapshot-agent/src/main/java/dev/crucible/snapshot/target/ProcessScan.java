package dev.crucible.snapshot.target;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;

/** Finds processes by their command line (e.g. a CRIU that outlived the agent that started it). */
public final class ProcessScan {

    private ProcessScan() {
    }

    public static List<ProcessRef> matching(Predicate<List<String>> argv) {
        List<ProcessRef> out = new ArrayList<>();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : (Iterable<Path>) procs::iterator) {
                String name = p.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                try {
                    byte[] raw = Files.readAllBytes(p.resolve("cmdline"));
                    List<String> args = Arrays.asList(new String(raw, StandardCharsets.UTF_8).split("\0"));
                    if (!args.isEmpty() && argv.test(args)) {
                        out.add(ProcessRef.of(Long.parseLong(name)));
                    }
                } catch (IOException | RuntimeException ignored) {
                    // exited while we looked
                }
            }
        } catch (IOException e) {
            return out;
        }
        return out;
    }
}
