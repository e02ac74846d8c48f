package dev.crucible.probe;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.probe.pooling.Pooling;
import dev.crucible.probe.python.ProbePython;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * fixtures/hidden_states.pool is the one Python definition of the poolings: the exports' parity figures pool torch
 * tensors with it and quantize_int8.py pools numpy arrays with it. Both kinds of input must give what
 * dev.crucible.probe.pooling computes, or parity.json (and the int8 check against it) would judge the Java side
 * by another rule. Skips without $CRUCIBLE_PROBE_PYTHON (torch and numpy).
 */
class FixturePoolingParityTest {
    private static final List<String> POOLINGS = List.of("last_token", "mean_full", "mean_last_50", "mean_last_3", "mean_last_half", "max",
            "first_last_concat", "mean_std_concat");
    private static final String SCRIPT = String.join("\n",
            "import json, sys",
            "sys.path.insert(0, sys.argv[1])",
            "import numpy as np, torch",
            "import hidden_states, quantize_int8",
            "assert quantize_int8.pool is hidden_states.pool, 'quantize_int8 has a pool of its own'",
            "req = json.load(sys.stdin)",
            "out = []",
            "for h in req['matrices']:",
            "    a = np.array(h, dtype=np.float64)",
            "    out.append({p: {'numpy': [float(v) for v in hidden_states.pool(a, p)],",
            "                    'torch': [float(v) for v in hidden_states.pool(torch.tensor(a, dtype=torch.float32), p)]}",
            "                for p in req['poolings']})",
            "print(json.dumps(out))");

    @Test
    void torchAndNumpyInputsPoolAsTheJavaSideDoes() throws Exception {
        String env = System.getenv(ProbePython.ENV);
        Path python = env == null || env.isBlank() ? null : Path.of(env);
        Assumptions.assumeTrue(python != null && Files.isExecutable(python), "no $" + ProbePython.ENV + " (torch and numpy)");
        Path fixtures = ProbePython.script("hidden_states.py").getParent();

        Random rnd = new Random(11);
        ObjectMapper json = new ObjectMapper();
        List<float[][]> matrices = List.of(matrix(rnd, 1, 6), matrix(rnd, 2, 6), matrix(rnd, 7, 6), matrix(rnd, 64, 6));
        Process p = new ProcessBuilder(python.toString(), "-c", SCRIPT, fixtures.toString()).redirectErrorStream(false).start();
        p.getOutputStream().write(json.writeValueAsBytes(java.util.Map.of("matrices", matrices, "poolings", POOLINGS)));
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(err).isZero();

        JsonNode res = json.readTree(out);
        for (int m = 0; m < matrices.size(); m++) {
            float[][] h = matrices.get(m);
            for (String name : POOLINGS) {
                float[] want = Pooling.parse(name).pool(h, h.length);
                for (String side : List.of("numpy", "torch")) {
                    JsonNode got = res.get(m).get(name).get(side);
                    String what = side + " " + name + " of " + h.length + " rows";
                    assertThat(got.size()).as(what).isEqualTo(want.length);
                    for (int i = 0; i < want.length; i++) {
                        assertThat(got.get(i).asDouble()).as(what + " [" + i + "]").isCloseTo(want[i], org.assertj.core.data.Offset.offset(1e-5));
                    }
                }
            }
        }
    }

    private static float[][] matrix(Random rnd, int rows, int dim) {
        float[][] h = new float[rows][dim];
        for (float[] row : h) {
            for (int i = 0; i < dim; i++) row[i] = (float) rnd.nextGaussian();
        }
        return h;
    }
}
