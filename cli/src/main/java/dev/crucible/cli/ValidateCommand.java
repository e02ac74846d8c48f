package dev.crucible.cli;

import dev.crucible.api.validation.ManifestValidator;
import dev.crucible.api.validation.ValidationError;
import java.io.PrintWriter;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code crucible validate -f PATH...}: the same checks the admission webhook runs, offline. */
@Command(name = "validate", mixinStandardHelpOptions = true,
        description = "Check Crucible manifests against their CRD schemas, CEL rules and cross-references.")
public final class ValidateCommand implements Callable<Integer> {

    /** Errors printed before the rest are only counted (a 10,000-document file should not flood the terminal). */
    static final int MAX_PRINTED = 200;

    @Option(names = {"-f", "--filename"}, required = true, arity = "1..*", paramLabel = "PATH",
            description = "Files or folders of (multi-document) YAML.")
    List<Path> paths;

    @Option(names = "--out", paramLabel = "DIR", defaultValue = "crucible-out",
            description = "The output folder crucible run will write to: a spec.workspace.path holding it is refused. Default: ${DEFAULT-VALUE}.")
    Path outDir;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        return run(spec.commandLine().getOut(), spec.commandLine().getErr());
    }

    /**
     * {@code validate -f PATH... [--out DIR]} in its plain form, without picocli: building picocli's
     * model of every subcommand is a good part of a one-file run's start-up (its classes are Java 5
     * class files, which the CDS archive cannot hold). Returns null for anything else (help, {@code =}
     * forms, unknown or repeated options, a missing value), which picocli then parses and reports.
     */
    static Integer plain(String[] args, PrintWriter out, PrintWriter err) {
        if (args.length < 3 || !"validate".equals(args[0])) {
            return null;
        }
        ValidateCommand c = new ValidateCommand();
        c.paths = new ArrayList<>();
        boolean collecting = false;
        boolean sawOut = false;
        int valuesAfterFlag = 0;
        try {
            for (int i = 1; i < args.length; i++) {
                String a = args[i];
                if (a.equals("-f") || a.equals("--filename")) {
                    if (collecting && valuesAfterFlag == 0) {
                        return null;
                    }
                    collecting = true;
                    valuesAfterFlag = 0;
                } else if (a.equals("--out")) {
                    if (sawOut || (collecting && valuesAfterFlag == 0) || i + 1 >= args.length
                            || !plainValue(args[i + 1])) {
                        return null;
                    }
                    sawOut = true;
                    collecting = false;
                    c.outDir = Path.of(args[++i]);
                } else if (collecting && plainValue(a)) {
                    c.paths.add(Path.of(a));
                    valuesAfterFlag++;
                } else {
                    return null;
                }
            }
        } catch (InvalidPathException e) {
            return null;
        }
        if (c.paths.isEmpty() || (collecting && valuesAfterFlag == 0)) {
            return null;
        }
        if (c.outDir == null) {
            c.outDir = Path.of("crucible-out");
        }
        return c.run(out, err);
    }

    private static boolean plainValue(String a) {
        return !a.isEmpty() && !a.startsWith("-") && !a.startsWith("@");
    }

    private int run(PrintWriter out, PrintWriter err) {
        ManifestValidator validator = ruleCacheDir() == null ? new ManifestValidator()
                : ManifestValidator.withRuleCache(ruleCacheDir());
        ManifestValidator.Report report = validator.check(paths, outDir.toAbsolutePath().normalize());
        List<ValidationError> errors = report.errors();
        if (!errors.isEmpty()) {
            errors.stream().limit(MAX_PRINTED).forEach(e -> err.println(e)); // each error is one line
            if (errors.size() > MAX_PRINTED) {
                err.println("… and " + (errors.size() - MAX_PRINTED) + " more errors");
            }
            err.println(errors.size() + " error" + (errors.size() == 1 ? "" : "s") + " in " + report.documents()
                    + " document" + (report.documents() == 1 ? "" : "s"));
            err.flush();
            return Main.EXIT_INVALID;
        }
        if (report.documents() == 0) {
            err.println("no documents found in " + paths);
            err.flush();
            return Main.EXIT_INVALID;
        }
        out.println(report.documents() + " document" + (report.documents() == 1 ? "" : "s") + " valid");
        out.flush();
        return 0;
    }

    /**
     * Where the CRDs' checked CEL rules are kept between runs: {@code $CRUCIBLE_CEL_CACHE_DIR}, else
     * {@code ${XDG_CACHE_HOME:-~/.cache}/crucible/cel}; null ({@code CRUCIBLE_CEL_CACHE_DIR=}) turns it off.
     */
    static Path ruleCacheDir() {
        String explicit = System.getenv("CRUCIBLE_CEL_CACHE_DIR");
        if (explicit != null) {
            return explicit.isBlank() ? null : Path.of(explicit);
        }
        String xdg = System.getenv("XDG_CACHE_HOME");
        String home = dev.crucible.files.UserHome.path().toString(); // not "?" for a uid without passwd entry
        if (xdg != null && !xdg.isBlank()) {
            return Path.of(xdg, "crucible", "cel");
        }
        return home == null || home.isBlank() ? null : Path.of(home, ".cache", "crucible", "cel");
    }
}
