package dev.crucible.tracestore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.crucible.tracestore.common.S3Settings;
import dev.crucible.tracestore.common.StoreException;
import dev.crucible.tracestore.store.S3Storage;
import dev.crucible.tracestore.store.TraceFiles;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * How the S3 backend keeps a long segment, against a real moto server: one object per append, every 32 appends one
 * run of the loose parts, the finished segment one object (both copied in the background); what reads back is always the bytes appended, also with a left-over part
 * beside the run it went into (a crash between the copy and the delete), after a restart with nothing cached, and
 * a retry spanning a run is compared with it.
 */
class S3SegmentPiecesTest {

    private static byte[] line(int i) {
        return ("{\"seq\":" + (i + 1) + ",\"kind\":\"output\",\"data\":{\"text\":\"line " + i + "\"}}\n").getBytes(StandardCharsets.UTF_8);
    }

    private static String read(S3Storage s, int n) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        s.copySegment("team-a", "long", n, out);
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void partsBecomeRunsAndAFinishedSegmentOneObject() throws Exception {
        try (MotoServer moto = MotoServer.start()) {
            S3Settings cfg = moto.bucket("pieces");
            String seg = "rollouts/team-a/long/segments/";
            StringBuilder local = new StringBuilder();
            long offset = 0;
            S3Storage s3 = new S3Storage(cfg);
            TraceFiles files = new TraceFiles(s3);
            for (int i = 0; i < 70; i++) {
                byte[] l = line(i);
                files.append("team-a", "long", 1, offset, l);
                offset += l.length;
                local.append(new String(l, StandardCharsets.UTF_8));
            }
            // 70 appends: the copies (in the background, each taking every loose part there is when it runs) leave one
            // or two runs and fewer than 32 loose parts, where there were 70 objects
            s3.awaitCopies();
            var keys = moto.keys("pieces", seg);
            assertThat(keys.stream().filter(k -> k.matches(".*\\.parts/\\d{16}\\.\\d{16}")).count()).isBetween(1L, 2L);
            assertThat(keys.stream().filter(k -> k.matches(".*\\.parts/\\d{16}")).count()).isLessThan(32L);
            assertThat(read(s3, 1)).isEqualTo(local.toString());
            assertThat(files.segments("team-a", "long").get(0).bytes()).isEqualTo(offset);

            // a crash between a run's copy and its parts' delete leaves a part beside the run: reads are unchanged
            byte[] first = line(0);
            try (var c = moto.client()) {
                c.putObject(b -> b.bucket("pieces").key(seg + "000001.parts/0000000000000000"), RequestBody.fromBytes(first));
            }
            s3.close();

            // a restart: nothing cached; the size, the retry check and the next appends come from the listing
            s3 = new S3Storage(cfg);
            files = new TraceFiles(s3);
            assertThat(read(s3, 1)).isEqualTo(local.toString());
            byte[] all = local.toString().getBytes(StandardCharsets.UTF_8);
            int from = line(0).length * 2; // inside the first run, past its start
            assertThat(files.append("team-a", "long", 1, from, Arrays.copyOfRange(all, from, all.length)).added()).isZero();
            byte[] changed = Arrays.copyOfRange(all, from, all.length);
            changed[changed.length - 5] = 'X';
            TraceFiles f = files;
            assertThatThrownBy(() -> f.append("team-a", "long", 1, from, changed)).isInstanceOf(StoreException.class)
                    .hasMessageContaining("differs from what is stored");
            for (int i = 70; i < 80; i++) {
                byte[] l = line(i);
                files.append("team-a", "long", 1, offset, l);
                offset += l.length;
                local.append(new String(l, StandardCharsets.UTF_8));
            }
            assertThat(read(s3, 1)).isEqualTo(local.toString());

            // segment 2 begins: segment 1 becomes one object, every part and run of it gone
            files.append("team-a", "long", 2, 0, line(80));
            s3.awaitCopies();
            assertThat(moto.keys("pieces", seg)).containsExactly(seg + "000001.jsonl", seg + "000002.parts/0000000000000000");
            assertThat(read(s3, 1)).isEqualTo(local.toString());
            assertThat(read(s3, 2)).isEqualTo(new String(line(80), StandardCharsets.UTF_8));
            s3.close();
        }
    }
}
