package dev.crucible.verifier.grade.oracle;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Where the isolated oracle's untrusted workers start when grading runs in a rollout pod: the oracle-worker
 * container (sidecar end: {@code exec.container.OracleContainerHost}). Locally each worker is a box of its own
 * ({@link OracleWorkers}) and no host is needed.
 */
public interface WorkerHost {
    /** Why no worker can start (null: they can). May wait, bounded, for the worker container to come up. */
    String problem();

    /**
     * A fresh folder for one grading's FIFOs and scratch folder, at a path the grading process and the workers
     * both see; nothing else of the grading is put there (the workers may write in it).
     */
    Path base();

    /**
     * Starts serving one grading: the request FIFO {@code spawn} (where the grading process sees it and no worker
     * does), the workers' FIFOs in {@code fifo}, workers that see {@code root} without the trusted files
     * {@code masked} (relative), {@code shared} as their scratch folder, run by {@code python}.
     */
    Workers start(Path fifo, Path spawn, Path root, List<String> masked, Path shared, String python, Map<String, String> env);

    /** One grading's workers. */
    interface Workers extends AutoCloseable {
        /** Why a worker could not be started, if one could not (null: none failed). */
        String problem();

        @Override
        void close();
    }
}
