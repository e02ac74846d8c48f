package dev.crucible.derive;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Rust a job gets when it names none. On GitHub's runner that is rustup's: the channel a {@code rust-toolchain.toml}
 * (or legacy {@code rust-toolchain}) file pins, else the runner's current stable. Here the local runtime gave such a job
 * this machine's rustup default through RUSTUP_TOOLCHAIN, which also overrides the file, and may be pinned older:
 * tailwindcss's job builds its oxide crates through {@code pnpm run build} with no Rust step, its rust-toolchain.toml
 * says 1.95.0 (installed here), and setup failed with "rustc 1.85.0 is not supported by the following packages". So a
 * job that asks for no Rust in a repository with a Cargo.toml gets the file's channel, else {@code stable}.
 */
final class RunnerRust {
    private static final Pattern CHANNEL = Pattern.compile("(?m)^\\s*channel\\s*=\\s*[\"']([^\"']+)[\"']");

    private RunnerRust() {
    }

    static void add(Map<String, String> toolchains, Function<String, String> readFile, List<String> notes) {
        if (toolchains.containsKey("rust") || readFile.apply("Cargo.toml") == null) return;
        String pinned = pinned(readFile);
        if (pinned != null) {
            toolchains.put("rust", pinned);
            notes.add("the job names no Rust toolchain and the repository's rust-toolchain file pins " + pinned
                    + ", which rustup honours on CI's runner: rust is " + pinned + " here");
        } else {
            toolchains.put("rust", "stable");
            notes.add("the repository is a Rust workspace (Cargo.toml) and the job names no Rust toolchain: GitHub's runners "
                    + "carry the current stable Rust, so rust is 'stable' here, not this machine's rustup default");
        }
    }

    /** The channel of rust-toolchain.toml, or of a legacy rust-toolchain file (TOML or one line); null when none. */
    static String pinned(Function<String, String> readFile) {
        for (String f : List.of("rust-toolchain.toml", "rust-toolchain")) {
            String text = readFile.apply(f);
            if (text == null) continue;
            Matcher m = CHANNEL.matcher(text);
            if (m.find()) return m.group(1).strip();
            String line = text.lines().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).findFirst().orElse("");
            if (line.matches("[A-Za-z0-9.\\-]+")) return line;
        }
        return null;
    }
}
