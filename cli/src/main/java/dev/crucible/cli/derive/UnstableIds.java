package dev.crucible.cli.derive;

import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * Test ids that differ between two collections of the same tests: a parametrized test whose id is built from run-time
 * values the grader does not normalise (a random seed, a uuid, a counter of a module-level generator). Its id in one
 * run is never reported by the other, while the same test function reports an id the first lacks. Such a test cannot
 * be named in passToPass (no later run reports that id), so the baseline leaves it out with this reason instead of
 * calling it flaky or failing (within one grading the cross-check run already collects it under another id, so it
 * failed there as "no result in the cross-check run to confirm it", which named no cause).
 */
final class UnstableIds {
    private UnstableIds() {}

    /** The reason written for such a test. */
    static String reason(String id) {
        return "unstable id: " + function(id) + " is collected under other parameter ids in each run (built from run-time "
                + "values: the clock, a random seed, an address), so no later run can name this one";
    }

    /**
     * The ids of {@code first} that {@code second} does not report, of test functions that report in {@code second} an
     * id {@code first} lacks (both maps: test id to status, as {@link LocalRuns.Outcome#tests()} gives them).
     */
    static Set<String> between(Map<String, String> first, Map<String, String> second) {
        Set<String> onlySecond = new LinkedHashSet<>();
        for (String id : second.keySet()) if (!first.containsKey(id) && parametrized(id)) onlySecond.add(function(id));
        Set<String> out = new LinkedHashSet<>();
        for (String id : first.keySet()) {
            if (!second.containsKey(id) && parametrized(id) && onlySecond.contains(function(id))) out.add(id);
        }
        return out;
    }

    private static boolean parametrized(String id) {
        return id.indexOf('[') > 0;
    }

    /** The test function of a parametrized id: everything before its parameters. */
    static String function(String id) {
        int b = id.indexOf('[');
        return b > 0 ? id.substring(0, b) : id;
    }
}
