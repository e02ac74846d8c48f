package dev.crucible.probe;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Grouped corpora written by tests: texts of random words, solve counts chosen by a rule. */
final class SyntheticCorpus {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] WORDS = ("parser cache queue retry token header session schema loader router "
            + "config module test fails passes edit file function value return error bound page merge option "
            + "thread lock unicode float offset list callback default user input output total path flush").split(" ");

    private SyntheticCorpus() {
    }

    /** Labels independent of the text: k uniform in 0..8, words random, 12 groups. */
    static Path noise(Path file, int rows, long seed) throws Exception {
        Random rnd = new Random(seed);
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
            lines.add(row(i, words(rnd, 12 + rnd.nextInt(30)), rnd.nextInt(9), i % 12));
        }
        Files.write(file, lines);
        return file;
    }

    /**
     * The band label depends only on length: in-band rows are long (30–70 words), the others short
     * (8–45 words), with overlap so length alone is informative but not perfect.
     */
    static Path lengthOnly(Path file, int rows, long seed) throws Exception {
        Random rnd = new Random(seed);
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
            boolean inBand = rnd.nextDouble() < 0.35;
            int n = inBand ? 30 + rnd.nextInt(41) : 8 + rnd.nextInt(38);
            int k = inBand ? 1 + rnd.nextInt(3) : (rnd.nextBoolean() ? 0 : 4 + rnd.nextInt(5));
            lines.add(row(i, words(rnd, n), k, i % 12));
        }
        Files.write(file, lines);
        return file;
    }

    /**
     * Two named solvers over the same texts: "content" is in band mostly on texts drawn from the first
     * half of the vocabulary (learnable from the words), "noise" at random (nothing to learn); the
     * top-level k is content's.
     */
    static Path twoSolvers(Path file, int rows, long seed) throws Exception {
        Random rnd = new Random(seed);
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
            boolean inBand = rnd.nextDouble() < 0.35;
            int k = inBand ? 1 + rnd.nextInt(3) : (rnd.nextBoolean() ? 0 : 4 + rnd.nextInt(5));
            StringBuilder text = new StringBuilder();
            for (int w = 0, len = 12 + rnd.nextInt(20); w < len; w++) {
                boolean firstHalf = rnd.nextDouble() < 0.8 == inBand;
                int half = WORDS.length / 2;
                text.append(w == 0 ? "" : " ").append(WORDS[(firstHalf ? 0 : half) + rnd.nextInt(half)]);
            }
            java.util.Map<String, Object> row = new java.util.LinkedHashMap<>();
            row.put("id", "r" + i);
            row.put("group", "g" + i % 12);
            row.put("k", k);
            row.put("n", 8);
            row.put("text", text.toString());
            row.put("solvers", java.util.Map.of("content", java.util.Map.of("k", k, "n", 8),
                    "noise", java.util.Map.of("k", rnd.nextInt(9), "n", 8)));
            lines.add(JSON.writeValueAsString(row));
        }
        Files.write(file, lines);
        return file;
    }

    private static String words(Random rnd, int n) {
        StringBuilder b = new StringBuilder();
        for (int w = 0; w < n; w++) {
            b.append(w == 0 ? "" : " ").append(WORDS[rnd.nextInt(WORDS.length)]);
        }
        return b.toString();
    }

    private static String row(int i, String text, int k, int group) throws Exception {
        return JSON.writeValueAsString(java.util.Map.of("id", "r" + i, "group", "g" + group, "k", k, "n", 8,
                "text", text));
    }
}
