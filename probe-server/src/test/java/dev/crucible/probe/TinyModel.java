package dev.crucible.probe;

import java.net.URISyntaxException;
import java.nio.file.Path;

/** The committed tiny reference model (made by fixtures/make_tiny_model.py). */
final class TinyModel {
    private TinyModel() {
    }

    static Path dir() {
        try {
            return Path.of(TinyModel.class.getResource("/tiny-model/reference.json").toURI()).getParent();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
