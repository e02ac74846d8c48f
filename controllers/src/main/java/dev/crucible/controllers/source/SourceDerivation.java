package dev.crucible.controllers.source;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.api.v1alpha1.environment.DerivedStatus;
import dev.crucible.api.v1alpha1.environment.SourceSpec;
import dev.crucible.derive.Derivation;
import dev.crucible.derive.DerivationException;
import dev.crucible.derive.WorkflowDeriver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * CI derivation inside the operator: for an RLEnvironment whose {@code spec.source} names a workflow,
 * the workflow file is read at the commit (from a local repository, or from a git URL fetched shallowly
 * into a cache) and derived with the same {@link WorkflowDeriver} as {@code crucible derive}; the result
 * goes to {@code status.derived}. A derivation at a fixed commit never changes, so results are cached.
 */
public final class SourceDerivation {

    /** Either the derived status with a one-line summary, or why derivation failed (names file, job, line). */
    public record Result(DerivedStatus status, String summary, String error) {
        public boolean ok() {
            return error == null;
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    private static final int CACHE_SIZE = 256;

    private final WorkflowDeriver deriver = new WorkflowDeriver();
    private final GitFetcher fetcher;
    private final Map<String, Result> cache = Collections.synchronizedMap(new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Result> eldest) {
            return size() > CACHE_SIZE;
        }
    });

    public SourceDerivation(Path cacheDir) {
        this.fetcher = new GitFetcher(cacheDir);
    }

    /** Null when the source names no workflow (nothing to derive). */
    public Result derive(SourceSpec source) {
        if (source == null || source.workflow == null) {
            return null;
        }
        String key = String.join("\u0000", source.repo, source.commit, source.workflow, String.valueOf(source.job),
                String.valueOf(source.matrix == null ? null : new TreeMap<>(source.matrix)), String.valueOf(source.testStep));
        Result cached = cache.get(key);
        if (cached != null) {
            return cached;
        }
        Result result = compute(source);
        if (result.ok() || !result.error().startsWith(GitFetcher.TRANSIENT)) {
            cache.put(key, result); // deterministic at a commit; only network trouble is worth retrying
        }
        return result;
    }

    private Result compute(SourceSpec source) {
        try {
            Path local = Path.of(source.repo);
            Path repo = local.isAbsolute() && Files.isDirectory(local) ? local : fetcher.fetch(source.repo, source.commit);
            Derivation d = deriver.derive(repo, source.commit, source.workflow, source.job,
                    source.matrix == null ? Map.of() : source.matrix, source.testStep);
            return new Result(JSON.treeToValue(d.statusTree(), DerivedStatus.class), d.summary(), null);
        } catch (DerivationException e) {
            return new Result(null, null, e.getMessage());
        } catch (GitFetcher.FetchException e) {
            return new Result(null, null, e.getMessage());
        } catch (Exception e) {
            return new Result(null, null, "derivation failed: " + e);
        }
    }
}
