package dev.crucible.controllers.probe;

import dev.crucible.api.v1alpha1.ProbeModel;
import dev.crucible.api.v1alpha1.probe.Device;
import dev.crucible.api.v1alpha1.probe.HeadArchitecture;
import dev.crucible.api.v1alpha1.probe.HeadSpec;
import dev.crucible.api.v1alpha1.probe.Pooling;
import dev.crucible.api.v1alpha1.probe.ProbeModelSpec;
import dev.crucible.api.v1alpha1.probe.ReferenceModelSpec;
import dev.crucible.api.v1alpha1.probe.RewardComposition;
import dev.crucible.api.v1alpha1.probe.RewardSpec;
import dev.crucible.api.v1alpha1.probe.ServingSpec;
import dev.crucible.api.v1alpha1.probe.TargetBand;
import dev.crucible.api.v1alpha1.probe.TrajectorySpec;
import dev.crucible.api.v1alpha1.probe.TurnAggregation;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.List;

/** ProbeModels as examples/probe/probemodel.yaml writes them, with the CRD defaults filled in. */
final class ProbeFixtures {

    private ProbeFixtures() {
    }

    static ProbeModel trajectoryProbe(String name) {
        ProbeModel p = new ProbeModel();
        p.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace("ns").withGeneration(3L)
                .withUid("uid-" + name).build());
        ProbeModelSpec s = new ProbeModelSpec();
        s.referenceModel = new ReferenceModelSpec();
        s.referenceModel.path = "qwen2-tiny/model.onnx";
        s.referenceModel.tokenizerPath = "qwen2-tiny/tokenizer.json";
        s.referenceModel.claimName = "probe-models";
        s.referenceModel.maxTokens = 2048;
        s.referenceModel.numLayers = 4;
        s.layer = 2;
        s.pooling = Pooling.MEAN_LAST_HALF;
        s.trajectory = new TrajectorySpec();
        s.trajectory.turnPooling = Pooling.MEAN_FULL;
        s.trajectory.aggregation = TurnAggregation.MAX;
        s.trajectory.maxTurns = 64;
        HeadSpec linear = new HeadSpec();
        linear.name = "linear";
        linear.architecture = HeadArchitecture.LINEAR;
        linear.weightsPath = "heads/linear.json";
        HeadSpec mlp = new HeadSpec();
        mlp.name = "mlp";
        mlp.architecture = HeadArchitecture.DEEP_MLP;
        mlp.weightsPath = "heads/mlp.json";
        mlp.layer = 3;
        mlp.pooling = Pooling.FIRST_LAST_CONCAT;
        s.heads = List.of(linear, mlp);
        s.reward = new RewardSpec();
        s.reward.composition = RewardComposition.SOFT_GATE;
        s.reward.invalidFloor = -5.0;
        s.reward.clipMin = 0.05;
        s.reward.clipMax = 0.95;
        s.targetBand = new TargetBand();
        s.targetBand.minSolves = 1;
        s.targetBand.maxSolves = 3;
        s.targetBand.attempts = 8;
        s.serving = new ServingSpec();
        s.serving.replicas = 2;
        s.serving.gpus = 1;
        s.serving.device = Device.AUTO;
        s.serving.maxBatchTokens = 16384;
        s.serving.maxRequestBytes = 8388608;
        p.setSpec(s);
        return p;
    }

    static ProbeModel textProbe(String name) {
        ProbeModel p = trajectoryProbe(name);
        p.getSpec().trajectory = null;
        return p;
    }

    static ProbeModel cpuProbe(String name) {
        ProbeModel p = textProbe(name);
        p.getSpec().serving.gpus = 0;
        return p;
    }
}
