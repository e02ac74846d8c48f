package dev.crucible.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.controllers.config.CrucibleImages;
import dev.crucible.controllers.config.OperatorSettings;
import dev.crucible.controllers.probe.ProbeDeploymentBuilder;
import dev.crucible.e2e.images.BuildImageNames;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The chart, the operator's defaults and examples/ name exactly the images the build writes (the root
 * pom's crucible.image.* properties), and image.registry puts one prefix in front of all of them.
 */
class ChartImagesTest {

    @Test
    void chartNamesTheImagesTheBuildWrites() throws Exception {
        BuildImageNames build = BuildImageNames.fromRootPom();
        Map<String, String> images = images(ChartRendering.render(Map.of()));
        assertThat(images).containsExactlyInAnyOrderEntriesOf(Map.of(
                "operator", build.reference("operator"),
                "snapshot-agent", build.reference("snapshot-agent"),
                "sidecar-verifier", build.reference("sidecar-verifier"),
                "probe-server", build.reference("probe-server")));
        assertThat(Files.readString(ChartRendering.chartDir().resolve("Chart.yaml")))
                .as("Chart.yaml appVersion is the project version, the tag the build writes")
                .containsPattern("(?m)^appVersion: \"" + Pattern.quote(build.projectVersion()) + "\"");
    }

    @Test
    void registryPrefixesEveryImage() throws Exception {
        BuildImageNames build = BuildImageNames.fromRootPom();
        Map<String, String> images = images(ChartRendering.render(Map.of("image.registry", "registry.example.com:5000/ml/")));
        assertThat(images).hasSize(4).allSatisfy((image, ref) ->
                assertThat(ref).isEqualTo("registry.example.com:5000/ml/" + build.reference(image)));
        Map<String, String> tagged = images(ChartRendering.render(Map.of("image.tag", "1.2.3")));
        assertThat(tagged.get("operator")).isEqualTo(build.reference("operator").replaceAll(":[^:]+$", ":1.2.3"));
    }

    /** The trace store (off by default) names the image trace-store's -Pimages build writes, behind the same registry. */
    @Test
    void traceStoreNamesTheImageTheBuildWrites() throws Exception {
        BuildImageNames build = BuildImageNames.fromRootPom();
        assertThat(traceStoreImage(ChartRendering.render(Map.of("traceStore.enabled", "true")))).isEqualTo(build.reference("trace-store"));
        assertThat(traceStoreImage(ChartRendering.render(Map.of("traceStore.enabled", "true", "image.registry", "registry.example.com:5000/ml/"))))
                .isEqualTo("registry.example.com:5000/ml/" + build.reference("trace-store"));
    }

    private static String traceStoreImage(String rendered) {
        return StrictDecoding.decode(rendered).stream().filter(Deployment.class::isInstance).map(Deployment.class::cast)
                .filter(d -> d.getMetadata().getName().endsWith("-trace-store")).findFirst()
                .orElseThrow(() -> new AssertionError("no trace-store Deployment")).getSpec().getTemplate().getSpec().getContainers().get(0).getImage();
    }

    @Test
    void operatorDefaultsAreTheBuildsNames() throws Exception {
        BuildImageNames build = BuildImageNames.fromRootPom();
        assertThat(OperatorSettings.DEFAULT_VERIFIER_IMAGE).isEqualTo(build.reference("sidecar-verifier"));
        assertThat(ProbeDeploymentBuilder.DEFAULT_IMAGE).isEqualTo(build.reference("probe-server"));
        for (String image : List.of("operator", "sidecar-verifier", "snapshot-agent", "probe-server", "pause")) {
            assertThat(CrucibleImages.reference(image)).isEqualTo(build.reference(image));
        }
    }

    /** Every image examples/ names is one images/build-all builds, or plainly the user's own (registry.example.com). */
    @Test
    void examplesNameBuiltImages() throws Exception {
        BuildImageNames build = BuildImageNames.fromRootPom();
        Pattern image = Pattern.compile("(?m)^\\s*image:\\s*(\\S+)");
        List<String> found;
        try (Stream<Path> files = Files.walk(BuildImageNames.repoRoot().resolve("examples"))) {
            found = files.filter(p -> p.toString().endsWith(".yaml") && !p.toString().contains("/invalid/"))
                    .flatMap(p -> {
                        try {
                            Matcher m = image.matcher(Files.readString(p));
                            return m.results().map(r -> r.group(1));
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    }).toList();
        }
        assertThat(found).contains(build.reference("example-python"))
                .allMatch(i -> i.equals(build.reference("example-python")) || i.startsWith("registry.example.com/"));
    }

    /** Component → image, from the operator Deployment, the agent DaemonSet and the operator's config. */
    private static Map<String, String> images(String rendered) {
        List<HasMetadata> objects = StrictDecoding.decode(rendered);
        String operator = objects.stream().filter(Deployment.class::isInstance).map(Deployment.class::cast)
                .findFirst().orElseThrow().getSpec().getTemplate().getSpec().getContainers().get(0).getImage();
        String agent = objects.stream().filter(DaemonSet.class::isInstance).map(DaemonSet.class::cast)
                .findFirst().orElseThrow().getSpec().getTemplate().getSpec().getContainers().get(0).getImage();
        String props = objects.stream().filter(ConfigMap.class::isInstance).map(ConfigMap.class::cast)
                .filter(c -> c.getData() != null && c.getData().containsKey("application.properties"))
                .findFirst().orElseThrow().getData().get("application.properties");
        return Map.of("operator", operator, "snapshot-agent", agent,
                "sidecar-verifier", property(props, "crucible.verifier.image"),
                "probe-server", property(props, "crucible.probe.server-image"));
    }

    private static String property(String props, String key) {
        return props.lines().map(String::trim).filter(l -> l.startsWith(key + "="))
                .map(l -> l.substring(key.length() + 1)).findFirst()
                .orElseThrow(() -> new AssertionError("operator config has no " + key));
    }
}
