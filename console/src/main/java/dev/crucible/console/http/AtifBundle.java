package dev.crucible.console.http;

import dev.crucible.console.store.ConsoleError;
import dev.crucible.console.store.RolloutQuery;
import dev.crucible.console.store.RolloutSummary;
import dev.crucible.console.store.RunStore;
import dev.crucible.console.store.SafeFiles;
import dev.crucible.trajectory.AtifExport;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * The rollouts a query selects as one ATIF bundle, for Docent, Inspect or Harbor: a zip with one Harbor ATIF v1.8
 * document per rollout ({@code ID/trajectory.atif.json}: the one crucible run wrote at the end, else exported now from
 * the segments) and a README.txt naming the filters and anything left out. Written to a temporary file (streamed, one
 * event in memory at a time), which the server sends and deletes.
 */
final class AtifBundle {
    static final int MAX_ROLLOUTS = 500;

    record Bundle(Path zip, int documents) {}

    private AtifBundle() {}

    static Bundle write(RunStore store, RolloutQuery q, String query) throws IOException {
        List<RolloutSummary> matched = store.index().rollouts().stream().filter(q::matches).toList();
        if (matched.isEmpty()) throw ConsoleError.notFound("no rollout matches these filters: nothing to export");
        if (matched.size() > MAX_ROLLOUTS) {
            throw ConsoleError.badRequest(matched.size() + " rollouts match; an ATIF bundle holds at most " + MAX_ROLLOUTS + ": narrow the filters");
        }
        Path zip = Files.createTempFile("crucible-atif-", ".zip");
        List<String> notes = new ArrayList<>();
        int documents = 0;
        try (ZipOutputStream z = new ZipOutputStream(Files.newOutputStream(zip))) {
            for (RolloutSummary r : matched) {
                Path t = store.folder(r.id()).resolve("trajectory");
                if (!SafeFiles.isDirectory(t.resolve("segments"))) {
                    notes.add(r.id() + ": no trajectory, left out");
                    continue;
                }
                z.putNextEntry(new ZipEntry(("." .equals(r.id()) ? "rollout" : r.id()) + "/" + AtifExport.FILE));
                Path written = t.resolve(AtifExport.FILE);
                if (Files.isRegularFile(written, LinkOption.NOFOLLOW_LINKS)) {
                    try (InputStream in = Files.newInputStream(written, LinkOption.NOFOLLOW_LINKS)) {
                        in.transferTo(z);
                    }
                } else {
                    for (String p : AtifExport.export(t, r.id(), new AtifExport.AgentInfo("unknown", "unknown", Map.of()), keepOpen(z))) {
                        notes.add(r.id() + ": " + p);
                    }
                }
                z.closeEntry();
                documents++;
            }
            z.putNextEntry(new ZipEntry("README.txt"));
            String readme = "Crucible rollouts as Harbor ATIF v1.8 documents (" + AtifExport.SCHEMA_VERSION + "), one per rollout: ID/"
                    + AtifExport.FILE + ".\nFrom " + store.root() + (query.isEmpty() ? ", every rollout" : ", filters: " + query) + ".\n"
                    + documents + " documents" + (notes.isEmpty() ? ".\n" : "; notes:\n" + String.join("\n", notes) + "\n");
            z.write(readme.getBytes(StandardCharsets.UTF_8));
            z.closeEntry();
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(zip);
            throw e;
        }
        return new Bundle(zip, documents);
    }

    /** The export closes its stream at the end of a document; the zip must stay open for the next one. */
    private static OutputStream keepOpen(OutputStream out) {
        return new FilterOutputStream(out) {
            @Override
            public void write(byte[] b, int off, int len) throws IOException { out.write(b, off, len); }

            @Override
            public void close() throws IOException { out.flush(); }
        };
    }
}
