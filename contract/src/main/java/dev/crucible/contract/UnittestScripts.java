package dev.crucible.contract;

import java.util.regex.Pattern;

/**
 * Which Python scripts the grader runs per test as unittest scripts ({@code python test.py}): one that calls
 * {@code unittest.main(...)} with unittest's own runner, so the grader's result class can stand in for the
 * default one. Derive writes such a step as a per-test verifier; grading recognises it the same way.
 */
public final class UnittestScripts {
    private static final Pattern UNITTEST_MAIN = Pattern.compile("(?m)^\\s*unittest\\.main\\(");

    private UnittestScripts() {}

    public static boolean isUnittestScript(String source) {
        return source != null && UNITTEST_MAIN.matcher(source).find() && !source.contains("testRunner");
    }
}
