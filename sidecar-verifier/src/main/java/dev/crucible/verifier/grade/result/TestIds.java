package dev.crucible.verifier.grade.result;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Test ids as they must be to match between runs: a parametrized id can carry the grading tree's path
 * ({@code test_load[/tmp/crucible-episode-81/grade-1/data/a.json]}), a temporary folder's random name or an
 * object's address, none of which is the same twice, so failToPass / passToPass / excludedTests written from one
 * run would never match the next. The tree's path becomes relative, other temporary paths {@code <tmp>},
 * addresses {@code 0x?}, the clock's date (with its time of day) {@code <now>}; two ids made equal keep apart as
 * {@code " #2"}.
 */
public final class TestIds {
    private static final Pattern TEMP = Pattern.compile("(?<![\\w./-])(?:/private)?(?:/tmp|/var/tmp|/var/folders)/[^\\s\\]\\[,)(:'\"]*");
    private static final Pattern ADDRESS = Pattern.compile("\\b0x[0-9a-fA-F]{6,16}\\b");
    private static final String TIME = "\\d{2}:\\d{2}:\\d{2}(?:[.,]\\d{1,9})?(?:Z|[+-]\\d{2}:?\\d{2})?";
    /**
     * A date, year first or last, with the time of day before or after it: marshmallow's
     * {@code parametrize(..., [dt.datetime.now().strftime("%H:%M:%S %Y-%m-%d"), ...])} gives ids that no two collections
     * (the isolated run and its cross-check, two baseline runs, a fix task's runs) share.
     */
    private static final Pattern STAMP = Pattern.compile("(?<![\\d:])(?:(?<t1>" + TIME + ")[ T_])?"
            + "(?:(?<y>\\d{4})[-/](?<m>\\d{2})[-/](?<d>\\d{2})|(?<m2>\\d{2})[-/](?<d2>\\d{2})[-/](?<y2>\\d{4}))"
            + "(?:[ T_](?<t2>" + TIME + "))?(?![\\d:])");

    private TestIds() {}

    /** One id, normalised for the grading tree {@code root} (null: no tree path to remove). */
    public static String normalise(String id, Path root) {
        String s = id;
        if (root != null) {
            String r = root.toAbsolutePath().normalize().toString();
            s = s.replace(r + "/", "").replace(r, ".");
        }
        s = TEMP.matcher(s).replaceAll("<tmp>");
        s = ADDRESS.matcher(s).replaceAll("0x?");
        return STAMP.matcher(s).replaceAll(m -> isNow(m) ? "<now>" : java.util.regex.Matcher.quoteReplacement(m.group()));
    }

    /**
     * Whether a date in an id is the clock's: within a day of today (UTC, so any time zone's today), where a date written
     * into a test (2019-01-02) is left as it is. Only then is it taken out, so ids of fixed dates stay readable and apart.
     */
    private static boolean isNow(java.util.regex.MatchResult m) {
        boolean yearFirst = m.group(2) != null; // groups: t1, y, m, d, m2, d2, y2, t2 (MatchResult has no names in Java 17)
        String y = yearFirst ? m.group(2) : m.group(7);
        String mo = yearFirst ? m.group(3) : m.group(5);
        String d = yearFirst ? m.group(4) : m.group(6);
        try {
            java.time.LocalDate date = java.time.LocalDate.of(Integer.parseInt(y), Integer.parseInt(mo), Integer.parseInt(d));
            java.time.LocalDate today = java.time.LocalDate.now(java.time.ZoneOffset.UTC);
            return Math.abs(java.time.temporal.ChronoUnit.DAYS.between(today, date)) <= 1;
        } catch (java.time.DateTimeException | NumberFormatException e) {
            return false;
        }
    }

    /**
     * {@code byId} keyed by normalised ids, in its order, with the same {@code " #n"} rule as {@link #normalise(List, Path)}:
     * a record of raw ids (the oracle plugin's) must name tests as the run's outcome does, or a parametrized id holding
     * the tree's path ({@code test_x[/tmp/.../grade-1/tests/test_utils.py]}, psf/requests' {@code __file__}) has no record.
     */
    public static <V> Map<String, V> normaliseKeys(Map<String, V> byId, Path root) {
        Map<String, V> out = new java.util.LinkedHashMap<>();
        List<String> ids = normaliseAll(List.copyOf(byId.keySet()), root);
        int i = 0;
        for (V v : byId.values()) out.put(ids.get(i++), v);
        return out;
    }

    /** The tests with normalised ids, in order; a test whose id does not change is the same object. */
    public static List<TestCase> normalise(List<TestCase> tests, Path root) {
        List<String> ids = normaliseAll(tests.stream().map(TestCase::id).toList(), root);
        List<TestCase> out = new ArrayList<>(tests.size());
        for (int i = 0; i < tests.size(); i++) {
            TestCase t = tests.get(i);
            String id = ids.get(i);
            out.add(id.equals(t.id()) ? t : new TestCase(id, t.status(), t.group(), t.durationMs(), t.message()));
        }
        return out;
    }

    /** Each id normalised, in order; the second and later ids made equal get {@code " #2"}, {@code " #3"}... */
    private static List<String> normaliseAll(List<String> raw, Path root) {
        Map<String, Integer> seen = new HashMap<>();
        List<String> out = new ArrayList<>(raw.size());
        for (String r : raw) {
            String id = normalise(r, root);
            int n = seen.merge(id, 1, Integer::sum);
            out.add(n > 1 ? id + " #" + n : id);
        }
        return out;
    }
}
