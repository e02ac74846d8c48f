package dev.crucible.verifier.monitor;

import dev.crucible.verifier.config.HackPolicy;
import dev.crucible.verifier.pristine.PristineSnapshot;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * What the monitor watches. {@code hiddenFiles} are read-protected (hidden tests, ground truth);
 * {@code graderFiles} must not change (manifest, grader scripts); {@code siteDirs} are the
 * interpreter's site-packages where .pth files and sitecustomize run at start-up; {@code baselineRoot}
 * is the tree whose state is "before" (the workspace itself for a live episode, the environment's
 * original workspace for post-hoc grading). {@code python} is the environment's interpreter as found at
 * reset: the syntax rules parse with it (else with python3 on the sidecar's PATH; never with one
 * inside the workspace).
 */
public record MonitorConfig(Path workspace, Path baselineRoot, PristineSnapshot pristine, HackPolicy policy, List<Path> hiddenFiles,
                            List<Path> graderFiles, List<Path> graderDirs, List<Path> siteDirs, Set<String> stdlibModules,
                            Duration scanInterval, Duration processInterval, String python) {
    public MonitorConfig {
        hiddenFiles = List.copyOf(hiddenFiles);
        graderFiles = List.copyOf(graderFiles);
        graderDirs = List.copyOf(graderDirs);
        siteDirs = List.copyOf(siteDirs);
        stdlibModules = Set.copyOf(stdlibModules);
    }

    public MonitorConfig(Path workspace, Path baselineRoot, PristineSnapshot pristine, HackPolicy policy, List<Path> hiddenFiles,
                         List<Path> graderFiles, List<Path> graderDirs, List<Path> siteDirs, Set<String> stdlibModules,
                         Duration scanInterval, Duration processInterval) {
        this(workspace, baselineRoot, pristine, policy, hiddenFiles, graderFiles, graderDirs, siteDirs, stdlibModules, scanInterval,
                processInterval, null);
    }
}
