package dev.crucible.console.store;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The counts beside the rollouts list, over the rollouts that pass the query: rollouts per environment × detector,
 * rollouts per finding pattern (one hack seen in 40 runs is one row with 40 behind it), solve rate and mean reward
 * per environment; and the values each filter can take (over every rollout, so a filter can always be widened again).
 */
public record RolloutGroups(List<EnvironmentDetector> byEnvironmentDetector, List<Pattern> byPattern, List<EnvironmentStats> environments,
                            Map<String, List<String>> values, int patternsLeftOut) {
    public static final int MAX_PATTERNS = 200;

    public record EnvironmentDetector(String environment, String detector, int rollouts, int findings) {}

    public record Pattern(String pattern, String detector, String rule, String severity, String path, String shape, int rollouts,
                          int findings, String example) {}

    /**
     * {@code solved}: rollouts whose verdict is pass; {@code rewards}: how many rollouts had each reward, lowest first;
     * {@code learnableBand} and where the solve rate lies against it ({@code bandPosition}: below, inside, above).
     */
    public record EnvironmentStats(String environment, int rollouts, int solved, double solveRate, Double meanReward, Map<String, Integer> rewards,
                                   LearnableBands.Band learnableBand, String bandPosition) {}

    public static RolloutGroups of(RunStore store, RolloutQuery q) {
        RunStore.Index index = store.index();
        List<RolloutSummary> all = index.rollouts();
        Map<String, int[]> envDet = new LinkedHashMap<>();
        Map<String, Pattern> patterns = new LinkedHashMap<>();
        Map<String, int[]> envStats = new LinkedHashMap<>();
        Map<String, double[]> envReward = new LinkedHashMap<>();
        Map<String, Map<String, Integer>> envRewards = new LinkedHashMap<>();
        for (RolloutSummary r : all) {
            if (!q.matches(r)) continue;
            String env = r.environment() == null ? "(none)" : r.environment();
            int[] s = envStats.computeIfAbsent(env, k -> new int[2]);
            s[0]++;
            if ("pass".equals(r.verdict())) s[1]++;
            if (r.reward() != null) {
                double[] m = envReward.computeIfAbsent(env, k -> new double[2]);
                m[0] += r.reward();
                m[1]++;
                envRewards.computeIfAbsent(env, k -> new java.util.TreeMap<>()).merge(String.valueOf(r.reward()), 1, Integer::sum);
            }
            Set<String> detectorsSeen = new HashSet<>();
            Set<String> patternsSeen = new HashSet<>();
            for (FindingSummary f : r.findings()) {
                if (q.hasFindingFilter() && !q.matches(f)) continue;
                String key = env + "\u0000" + f.detector();
                int[] c = envDet.computeIfAbsent(key, k -> new int[2]);
                c[1]++;
                if (detectorsSeen.add(key)) c[0]++;
                Pattern p = patterns.get(f.pattern());
                boolean first = patternsSeen.add(f.pattern());
                patterns.put(f.pattern(), p == null
                        ? new Pattern(f.pattern(), f.detector(), f.rule(), f.severity(), f.path(), FindingPattern.shape(f.evidence()), 1, 1, r.id())
                        : new Pattern(p.pattern(), p.detector(), p.rule(), p.severity(), p.path(), p.shape(), p.rollouts() + (first ? 1 : 0),
                                p.findings() + 1, p.example()));
            }
        }
        List<EnvironmentDetector> ed = new ArrayList<>();
        envDet.forEach((k, c) -> {
            String[] kv = k.split("\u0000", 2);
            ed.add(new EnvironmentDetector(kv[0], kv[1], c[0], c[1]));
        });
        ed.sort(Comparator.comparingInt(EnvironmentDetector::rollouts).reversed().thenComparing(EnvironmentDetector::environment)
                .thenComparing(e -> String.valueOf(e.detector())));
        List<Pattern> ps = new ArrayList<>(patterns.values());
        ps.sort(Comparator.comparingInt(Pattern::rollouts).reversed().thenComparing(p -> String.valueOf(p.detector())));
        int left = Math.max(0, ps.size() - MAX_PATTERNS);
        List<EnvironmentStats> envs = new ArrayList<>();
        envStats.forEach((env, s) -> {
            double[] m = envReward.get(env);
            double rate = s[0] == 0 ? 0 : (double) s[1] / s[0];
            LearnableBands.Band band = index.band(env);
            envs.add(new EnvironmentStats(env, s[0], s[1], rate, m == null ? null : m[0] / m[1], envRewards.getOrDefault(env, Map.of()),
                    band, band.position(rate)));
        });
        return new RolloutGroups(ed, List.copyOf(ps.subList(0, Math.min(ps.size(), MAX_PATTERNS))), envs, values(all), left);
    }

    private static Map<String, List<String>> values(List<RolloutSummary> all) {
        Map<String, TreeSet<String>> v = new LinkedHashMap<>();
        for (String k : List.of("environment", "phase", "detector", "severity")) v.put(k, new TreeSet<>());
        for (RolloutSummary r : all) {
            add(v.get("environment"), r.environment());
            add(v.get("phase"), r.phase());
            for (FindingSummary f : r.findings()) {
                add(v.get("detector"), f.detector());
                add(v.get("severity"), f.severity());
            }
        }
        Map<String, List<String>> out = new LinkedHashMap<>();
        v.forEach((k, s) -> out.put(k, List.copyOf(s)));
        return out;
    }

    private static void add(Set<String> s, String v) {
        if (v != null) s.add(v);
    }
}
