package dev.crucible.controllers.common;

import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSecurityContextBuilder;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;

/**
 * The safety defaults of every rollout pod (README.md, "Safety defaults on every rollout pod"): the agent is untrusted code,
 * so it runs non-root with no capabilities, no privilege escalation and the runtime's seccomp profile.
 */
public final class SecurityDefaults {

    private SecurityDefaults() {
    }

    public static PodSecurityContext pod(long uid) {
        return new PodSecurityContextBuilder()
                .withRunAsNonRoot(true)
                .withRunAsUser(uid)
                .withRunAsGroup(uid)
                .withFsGroup(uid)
                .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile()
                .build();
    }

    /** Per container, because capabilities and privilege escalation exist only at that level. */
    public static SecurityContext container(boolean readOnlyRoot) {
        return new SecurityContextBuilder()
                .withRunAsNonRoot(true)
                .withAllowPrivilegeEscalation(false)
                .withPrivileged(false)
                .withReadOnlyRootFilesystem(readOnlyRoot)
                .withNewCapabilities().withDrop("ALL").endCapabilities()
                .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile()
                .build();
    }
}
