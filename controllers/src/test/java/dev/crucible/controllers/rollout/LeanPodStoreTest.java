package dev.crucible.controllers.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.controllers.Fixtures;
import dev.crucible.controllers.config.OperatorSettings;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import org.junit.jupiter.api.Test;

class LeanPodStoreTest {

    @Test
    void cachedPodsLeaveOutWhatOnlyTheirSidecarReads() { // agent, verifier, grading, oracle-worker
        var env = Fixtures.cpuEnvironment("env");
        List<MemberPlan> plan = TopologyPlanner.plan(env.getSpec());
        Pod pod = new RolloutPodBuilder(OperatorSettings.defaults()).build(Fixtures.rollout("r1", "env"), env, plan.get(0), plan, false, null);
        pod.getMetadata().getAnnotations().put("example.com/kept", "yes");
        pod.getMetadata().setManagedFields(List.of(new ManagedFieldsEntry()));
        assertThat(pod.getMetadata().getAnnotations()).containsKey(EnvironmentConfigMapBuilder.ROLLOUT_ANNOTATION);

        LeanPodStore store = new LeanPodStore();
        store.put("ns/r1-main-0", pod);
        Pod cached = store.get("ns/r1-main-0");
        assertThat(cached.getMetadata().getAnnotations()).doesNotContainKey(EnvironmentConfigMapBuilder.ROLLOUT_ANNOTATION)
                .containsEntry("example.com/kept", "yes");
        assertThat(cached.getMetadata().getManagedFields()).isNull();
        assertThat(cached.getSpec().getContainers()).hasSize(4).allSatisfy(c -> {
            assertThat(c.getName()).isNotBlank();
            assertThat(c.getResources().getRequests()).containsKeys("cpu", "memory"); // the gang capacity check reads them
            assertThat(c.getEnv()).isNull();
            assertThat(c.getVolumeMounts()).isNull();
        });
        assertThat(cached.getSpec().getInitContainers()).singleElement().satisfies(c -> assertThat(c.getResources()).isNotNull());
        assertThat(cached.getSpec().getVolumes()).isNull();
        assertThat(cached.getSpec().getActiveDeadlineSeconds()).isNotNull();
    }
}
