package dev.crucible.cli;

import dev.crucible.api.validation.ManifestReader;
import java.nio.file.Path;
import java.util.List;

/** How many YAML documents the given paths hold (for the summary line). */
record ManifestCount(int documents) {
    static ManifestCount of(List<Path> paths) {
        return new ManifestCount(new ManifestReader().read(paths).manifests().size());
    }
}
