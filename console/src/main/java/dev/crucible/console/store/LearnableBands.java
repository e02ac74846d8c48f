package dev.crucible.console.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.contract.SpecDefaults;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;

/**
 * Each environment's learnable band (its {@code spec.learnableBand}: the solve rates at which a group of attempts still
 * carries a learning signal), as {@code crucible run} wrote it into a run's {@code summary.json}; the default band
 * where no summary names the environment. The rollouts view shows each environment's solve rate against it.
 */
public final class LearnableBands {
    /** {@code from}: the file that named it, or "default" (spec.learnableBand unset, or no summary.json seen). */
    public record Band(double minSolveRate, double maxSolveRate, String from) {
        /** Where {@code rate} lies: below, inside (bounds inclusive, as the operator's statistics count) or above. */
        public String position(double rate) {
            return rate < minSolveRate ? "below" : rate > maxSolveRate ? "above" : "inside";
        }
    }

    public static final Band DEFAULT = new Band(SpecDefaults.MIN_SOLVE_RATE, SpecDefaults.MAX_SOLVE_RATE, "default");
    /** A summary.json larger than this is not read (one run's groups are a few KiB). */
    static final long MAX_SUMMARY_BYTES = 4 << 20;
    private static final ObjectMapper JSON = new ObjectMapper();

    private LearnableBands() {}

    /** The bands of the cluster source's {@code learnableBands} ({name: {from, band: spec.learnableBand}}); unset bounds take the defaults. */
    public static Map<String, Band> of(JsonNode bands) {
        Map<String, Band> out = new java.util.TreeMap<>();
        bands.fields().forEachRemaining(e -> {
            JsonNode b = e.getValue().path("band");
            out.put(e.getKey(), new Band(b.path("minSolveRate").isNumber() ? b.get("minSolveRate").asDouble() : SpecDefaults.MIN_SOLVE_RATE,
                    b.path("maxSolveRate").isNumber() ? b.get("maxSolveRate").asDouble() : SpecDefaults.MAX_SOLVE_RATE,
                    e.getValue().path("from").asText("cluster")));
        });
        return out;
    }

    /**
     * Adds the bands {@code dir}/summary.json names to {@code into} (a later run's band for the same environment
     * replaces an earlier one). A summary that cannot be read is a problem returned, never an exception: the list
     * still shows, with the default band.
     */
    static String read(Path dir, String shownAs, Map<String, Band> into) {
        Path f = dir.resolve("summary.json");
        try {
            if (!Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) return null;
            if (Files.size(f) > MAX_SUMMARY_BYTES) return shownAs + ": larger than " + MAX_SUMMARY_BYTES + " bytes, not read";
            JsonNode doc;
            try (InputStream in = Files.newInputStream(f, LinkOption.NOFOLLOW_LINKS)) {
                doc = JSON.readTree(in);
            }
            for (JsonNode g : doc.path("rollouts")) {
                JsonNode b = g.path("learnableBand");
                String env = g.path("environment").asText(null);
                if (env == null || !b.path("minSolveRate").isNumber() || !b.path("maxSolveRate").isNumber()) continue;
                into.put(env, new Band(b.get("minSolveRate").asDouble(), b.get("maxSolveRate").asDouble(), shownAs));
            }
            return null;
        } catch (IOException | RuntimeException e) {
            return shownAs + ": not read (" + e.getMessage() + ")";
        }
    }
}
