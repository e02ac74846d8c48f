package dev.crucible.e2e.cluster;

import dev.crucible.api.validation.CrdSchemas;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Applies the generated CRDs (from the crds jar, META-INF/crucible/crds/) and waits until they are served. */
public final class CrdInstaller {

    private CrdInstaller() {
    }

    public static void install(KubernetesClient client) {
        for (String file : CrdSchemas.FILES) {
            try (InputStream in = CrdInstaller.class.getClassLoader().getResourceAsStream(CrdSchemas.RESOURCE_DIR + file)) {
                if (in == null) {
                    throw new IllegalStateException("CRD " + file + " is not on the classpath; build the crds module");
                }
                apply(client, in);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** Applies one CRD YAML file (e.g. another project's) and waits until it is served. */
    public static void install(KubernetesClient client, Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            apply(client, in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void apply(KubernetesClient client, InputStream in) {
        CustomResourceDefinition crd = client.getKubernetesSerialization().unmarshal(in, CustomResourceDefinition.class);
        client.apiextensions().v1().customResourceDefinitions().resource(crd).serverSideApply();
        client.apiextensions().v1().customResourceDefinitions().withName(crd.getMetadata().getName())
                .waitUntilCondition(c -> c.getStatus() != null && c.getStatus().getConditions() != null
                        && c.getStatus().getConditions().stream().anyMatch(
                                cond -> "Established".equals(cond.getType()) && "True".equals(cond.getStatus())),
                        60, TimeUnit.SECONDS);
    }
}
