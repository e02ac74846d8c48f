package dev.crucible.cli;

import dev.crucible.api.validation.ManifestValidator;
import dev.crucible.api.validation.ValidationError;
import java.io.PrintWriter;
import java.nio.file.Path;
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
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        ManifestValidator.Report report = new ManifestValidator().check(paths, outDir.toAbsolutePath().normalize());
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
}
