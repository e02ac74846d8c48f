package dev.crucible.verifier.pod;

import com.fasterxml.jackson.databind.JsonNode;
import dev.crucible.verifier.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * The attempt a warm-pool pod is claimed for (issue 39). A pool pod starts with everything that does not
 * depend on an attempt and an empty claim; the operator's claim writes the attempt into the pod's
 * {@code crucible.dev/claim} annotation, which the pod's downward-API volume projects as {@code claim.json}
 * (the kubelet rewrites a projected file when the annotation changes: nothing is added to the running pod).
 * The sidecar waits here until the file holds a claim, then takes the Rollout's identity and limits from it,
 * as a cold pod's sidecar takes them from its variables.
 */
public record WarmClaim(String rollout, String namespace, boolean interactive, long maxDurationSeconds,
                        Instant deadlineAt, int maxTurns, Instant claimedAt) {

    /**
     * Waits until {@code file} holds a claim; polls every {@code poll}. An empty or missing file is an unclaimed
     * pod; a claim that does not parse is an error naming the file and the field (the operator wrote it wrong:
     * running the attempt with guessed limits would be worse than failing the pod).
     */
    public static WarmClaim await(Path file, Duration poll) throws InterruptedException, IOException {
        while (true) {
            String text;
            try {
                text = Files.readString(file);
            } catch (NoSuchFileException e) {
                text = "";
            }
            if (!text.isBlank()) {
                return parse(file, text);
            }
            Thread.sleep(poll.toMillis());
        }
    }

    static WarmClaim parse(Path file, String text) {
        JsonNode n;
        try {
            n = Json.MAPPER.readTree(text);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException(file + ": not a JSON claim: " + e.getOriginalMessage());
        }
        if (n == null || !n.isObject()) {
            throw new IllegalArgumentException(file + ": not a JSON object");
        }
        String mode = text(file, n, "mode", true);
        if (!mode.equals("interactive") && !mode.equals("embedded")) {
            throw new IllegalArgumentException(file + ": mode: expected embedded or interactive, got '" + mode + "'");
        }
        return new WarmClaim(text(file, n, "rollout", true), text(file, n, "namespace", true), mode.equals("interactive"),
                number(file, n, "maxDurationSeconds", true), instant(file, n, "deadlineAt"),
                (int) number(file, n, "maxTurns", false), instant(file, n, "claimedAt"));
    }

    /** The pod's settings for this attempt: the claim's limits and deadline in place of the cold pod's variables. */
    public PodSettings applyTo(PodSettings s) {
        if (interactive != s.interactive()) {
            // the pod's containers were made for one mode (an interactive pod has no agent container to start)
            throw new IllegalArgumentException(s.claimFile() + ": mode: the claim is " + (interactive ? "interactive" : "embedded")
                    + " but this pool pod was made " + (s.interactive() ? "interactive" : "embedded"));
        }
        return new PodSettings(s.environmentFile(), s.workspace(), s.pristine(), s.runDir(), s.port(), s.resultFile(),
                maxDurationSeconds, maxTurns, interactive, s.execSocket(), s.apiTokenFile(), s.gradingSocket(), s.gradingDir(),
                interactive ? s.agentExecSocket() : null, deadlineAt, s.oracleSocket(), s.oracleDir(), s.resultMaxBytes(), null);
    }

    private static String text(Path file, JsonNode n, String field, boolean required) {
        JsonNode v = n.get(field);
        if (v == null || v.isNull() || !v.isTextual() || v.asText().isBlank()) {
            if (!required) return null;
            throw new IllegalArgumentException(file + ": " + field + ": required (a non-empty string)");
        }
        return v.asText();
    }

    private static long number(Path file, JsonNode n, String field, boolean required) {
        JsonNode v = n.get(field);
        if (v == null || v.isNull()) {
            if (!required) return 0;
            throw new IllegalArgumentException(file + ": " + field + ": required");
        }
        if (!v.canConvertToLong() || !v.isIntegralNumber() || v.asLong() < 0 || v.asLong() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(file + ": " + field + ": expected a non-negative whole number, got " + v);
        }
        return v.asLong();
    }

    private static Instant instant(Path file, JsonNode n, String field) {
        String v = text(file, n, field, true);
        try {
            return Instant.parse(v);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(file + ": " + field + ": expected an RFC 3339 time, got '" + v + "'");
        }
    }
}
