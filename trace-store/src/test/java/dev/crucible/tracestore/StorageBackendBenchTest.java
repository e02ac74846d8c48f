package dev.crucible.tracestore;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.tracestore.store.S3Storage;
import dev.crucible.tracestore.store.TraceFiles;
import dev.crucible.tracestore.store.TraceStorage;
import dev.crucible.tracestore.store.VolumeStorage;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Arrays;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * A benchmark of the two backends, printed, not asserted on time: the same appends (the sidecar's rounds: whole
 * lines, {@code -Dcrucible.bench.chunk} bytes each, default 4 KiB; a new segment every 1 MiB, which on S3 joins the
 * finished one) through {@link TraceFiles} on the volume and on S3 (moto, a local process), then every segment read
 * back. Prints p50/p99 per append, the p50 read of a finished segment (on S3 one object) and the read of the open
 * one (on S3 its runs and parts), and S3's ratio to the volume measured in the same run.
 * Skipped unless -Dcrucible.bench=true.
 */
class StorageBackendBenchTest {
    static final int APPENDS = Integer.getInteger("crucible.bench.appends", 900);
    static final int CHUNK = Integer.getInteger("crucible.bench.chunk", 4096);
    static final int SEGMENT = 1 << 20;

    @Test
    void appendAndReadOnTheVolumeAndOnS3() throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean("crucible.bench"), "a benchmark: run with -Dcrucible.bench=true");
        try (MotoServer moto = MotoServer.start()) {
            double[] volume = run("volume", new VolumeStorage(Files.createTempDirectory("bench-volume-")));
            double[] s3 = run("s3", new S3Storage(moto.bucket("bench")));
            System.out.printf("backend_ratio s3_vs_volume append_p50=%.1f append_p99=%.1f finished_segment_read_p50=%.1f open_segment_read=%.1f%n",
                    s3[0] / volume[0], s3[1] / volume[1], s3[2] / volume[2], s3[3] / volume[3]);
        }
    }

    /** p50 and p99 append ms, p50 read ms of a finished segment, read ms of the open (last) one. */
    private static double[] run(String name, TraceStorage storage) throws Exception {
        TraceFiles files = new TraceFiles(storage);
        byte[] line = ("{\"seq\":1,\"kind\":\"output\",\"data\":{\"text\":\"" + "x".repeat(CHUNK - 48) + "\"}}\n").getBytes(StandardCharsets.UTF_8);
        long[] appendNs = new long[APPENDS];
        int segment = 1;
        long offset = 0;
        for (int i = 0; i < APPENDS; i++) {
            if (offset + line.length > SEGMENT) {
                segment++;
                offset = 0;
            }
            long t0 = System.nanoTime();
            files.append("bench", "run", segment, offset, line);
            appendNs[i] = System.nanoTime() - t0;
            offset += line.length;
        }
        if (storage instanceof S3Storage s3) s3.awaitCopies(); // reads as a store that has caught up with its copies
        var segs = files.segments("bench", "run");
        assertThat(segs).hasSize(segment);
        long[] readNs = new long[segs.size() - 1];
        long openNs = 0;
        long bytes = 0;
        for (int i = 0; i < segs.size(); i++) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            long t0 = System.nanoTime();
            storage.copySegment("bench", "run", segs.get(i).number(), out);
            if (i < readNs.length) readNs[i] = System.nanoTime() - t0;
            else openNs = System.nanoTime() - t0;
            assertThat(out.size()).isEqualTo(segs.get(i).bytes());
            bytes += out.size();
        }
        storage.close();
        double[] r = {pct(appendNs, 50), pct(appendNs, 99), pct(readNs, 50), openNs / 1e6};
        System.out.printf("backend=%s appends=%d chunk_bytes=%d segments=%d append_p50_ms=%.2f append_p99_ms=%.2f"
                        + " finished_segment_read_p50_ms=%.2f open_segment_read_ms=%.2f read_bytes=%d%n",
                name, APPENDS, line.length, segs.size(), r[0], r[1], r[2], r[3], bytes);
        return r;
    }

    private static double pct(long[] ns, int p) {
        long[] s = ns.clone();
        Arrays.sort(s);
        return s[Math.min(s.length - 1, (int) Math.ceil(p / 100.0 * s.length) - 1)] / 1e6;
    }
}
