package dev.crucible.derive;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * {@code sudo apt-get install …} in a kept step. Setup runs as the user, without root, so it cannot install
 * system packages. Where derive knows what the machine has (the local {@code crucible derive} installs a
 * {@code dpkg-query} check), a step or line that only runs apt is left out when every package it installs is
 * already there, with that reason; when one is missing, the apt lines are left out too and setup says which
 * packages it lacks and goes on (the baseline decides whether the tests needed them). Without such a check (a
 * cluster image) the step stays as CI has it.
 */
final class SystemPackages {
    private static volatile Predicate<String> installed;

    private SystemPackages() {
    }

    /** {@code check}: a Debian package name → installed on the machine the environment will run on. */
    static void use(Predicate<String> check) {
        installed = check;
    }

    /** This machine's dpkg database: {@code dpkg-query -W} says "installed" for the package. */
    static boolean installedHere(String name) {
        try {
            Process p = new ProcessBuilder("dpkg-query", "-W", "-f=${db:Status-Status}", name)
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).strip();
            return p.waitFor(20, TimeUnit.SECONDS) && p.exitValue() == 0 && out.equals("installed");
        } catch (Exception e) {
            return false;
        }
    }

    /** Leaves out the apt-only steps and lines whose packages are present; a step lacking some fails setup, saying which. */
    static void apply(List<PlannedStep> steps) {
        Predicate<String> check = installed;
        if (check == null) return;
        for (PlannedStep p : steps) {
            if (p.disposition == Disposition.DROPPED) continue;
            AbsentInstallers.apply(p);
            BrowserInstalls.apply(p);
            if (p.disposition == Disposition.SETUP && p.script != null) {
                Result r = strip(p.script, check);
                if (r == null) continue;
                if (failsForMissing(r, p)) continue;
                if (r.rest().isBlank()) {
                    p.set(Disposition.DROPPED, "installs system packages " + r.packages()
                            + " with apt, already installed on this machine (dpkg-query); setup has no root to run apt");
                } else {
                    p.script = r.rest();
                    p.notes.add("its apt lines are left out: " + r.packages() + " already installed on this machine (dpkg-query)");
                }
            }
            if (!p.setupLines.isEmpty()) {
                Result r = strip(String.join("\n", p.setupLines), check);
                if (r == null) continue;
                if (failsForMissing(r, p)) continue;
                p.setupLines.clear();
                r.rest().lines().filter(l -> !l.isBlank()).forEach(p.setupLines::add);
                p.notes.add("its apt lines are left out: " + r.packages() + " already installed on this machine (dpkg-query)");
            }
        }
    }

    /**
     * A missing package is named in setup's output and setup goes on without it: CI often installs packages only
     * some paths need (a library for a wheel that has a binary build, a documentation tool). Whether the tests
     * need them is what the baseline run finds out; when setup or the tests fail later, this line in the log says
     * what the machine lacked. (It used to fail setup here: TheAlgorithms/Python was unusable for libhdf5-dev that
     * none of its tests need.)
     */
    private static boolean failsForMissing(Result r, PlannedStep p) {
        if (r.missing().isEmpty()) return false;
        String why = "step " + p.step.number() + " installs system packages with apt (" + String.join(" ", r.missing())
                + " not installed on this machine, dpkg-query); setup runs without root and goes on without them";
        String warn = "echo " + ShellScripts.quote("crucible: " + why) + " >&2";
        p.notes.add(why + ": the baseline shows whether the tests need them");
        String rest = r.rest().isBlank() ? warn : warn + "\n" + r.rest();
        if (p.disposition == Disposition.SETUP) {
            p.script = rest;
        } else {
            p.setupLines.clear();
            rest.lines().filter(l -> !l.isBlank()).forEach(p.setupLines::add);
        }
        return true;
    }

    /** @param rest the script without its apt-only lines; null result when the script runs no apt */
    record Result(String rest, List<String> packages, List<String> missing) {
    }

    static Result strip(String script, Predicate<String> check) {
        String joined = script.replaceAll("\\\\\\r?\\n", " ");
        StringBuilder rest = new StringBuilder();
        Set<String> packages = new LinkedHashSet<>();
        boolean any = false;
        for (String line : joined.split("\n", -1)) {
            List<String> segments = aptSourceSetup(line) ? List.of() : List.of(line.split("&&|;|\\|\\|"));
            boolean aptOnly = !line.isBlank();
            List<String> found = new ArrayList<>();
            for (String seg : segments) {
                List<String> pkgs = aptPackages(seg);
                if (pkgs == null) {
                    aptOnly = false;
                    break;
                }
                found.addAll(pkgs);
            }
            if (aptOnly) {
                any = true;
                packages.addAll(found);
            } else {
                rest.append(line).append('\n');
            }
        }
        if (!any) return null;
        List<String> missing = packages.stream().filter(n -> !check.test(n)).toList();
        return new Result(rest.toString().strip().isEmpty() ? "" : rest.toString().stripTrailing(), List.copyOf(packages), missing);
    }

    /**
     * A line that adds an apt source as root for the install that follows (fzf: {@code sudo install -d
     * /etc/apt/keyrings}, {@code wget … | sudo gpg --dearmor -o /etc/apt/keyrings/…}, {@code echo … | sudo tee
     * /etc/apt/sources.list.d/…}, {@code sudo add-apt-repository}, {@code … | sudo apt-key add -}): it belongs to
     * the apt lines, and without root it fails with "sudo: command not found" before the check can say anything.
     */
    static boolean aptSourceSetup(String line) {
        return line.matches(".*(^|[\\s|;&(])sudo\\s.*")
                && line.matches(".*(/etc/apt/|\\badd-apt-repository\\b|\\bapt-key\\b).*");
    }

    /** The packages an apt command installs ([] for update, upgrade, …), or null when it is no apt command. */
    static List<String> aptPackages(String segment) {
        List<String> words = new ArrayList<>(List.of(segment.strip().split("\\s+")));
        while (!words.isEmpty() && (words.get(0).equals("sudo") || words.get(0).startsWith("-")
                || words.get(0).matches("[A-Za-z_][A-Za-z0-9_]*=.*"))) {
            words.remove(0);
        }
        if (words.isEmpty() || !words.get(0).matches("apt|apt-get|aptitude")) return null;
        List<String> pkgs = new ArrayList<>();
        boolean install = false;
        for (int i = 1; i < words.size(); i++) {
            String w = words.get(i);
            if (w.contains("$") || w.contains("`") || w.contains("<")) {
                return null; // packages computed at run time: not something to check here
            } else if (w.equals("-o") || w.equals("-t")) {
                i++;
            } else if (w.startsWith("-")) {
                continue;
            } else if (!install) {
                install = w.equals("install");
                if (!install) return List.of(); // update, upgrade, autoremove, clean …
            } else {
                pkgs.add(w.replaceAll("[=:].*$", "").replaceAll("^['\"]|['\"]$", ""));
            }
        }
        return pkgs;
    }
}
