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
        ManifestValidator validator = new ManifestValidator();
        ManifestCount counted = ManifestCount.of(paths);
        List<ValidationError> errors = validator.validatePaths(paths, outDir.toAbsolutePath().normalize());
        if (!errors.isEmpty()) {
            errors.forEach(e -> err.println(e));
            err.println(errors.size() + " error" + (errors.size() == 1 ? "" : "s") + " in " + counted.documents() + " documents");
            err.flush();
            return Main.EXIT_INVALID;
        }
        if (counted.documents() == 0) {
            err.println("no documents found in " + paths);
            return Main.EXIT_INVALID;
        }
        out.println(counted.documents() + " documents valid");
        out.flush();
        return 0;
    }
}
