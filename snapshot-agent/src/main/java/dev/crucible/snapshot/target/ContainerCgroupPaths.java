package dev.crucible.snapshot.target;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Where kubelet puts a container's cgroup, from the pod UID and the container id in pod status
 * ("containerd://ID", "cri-o://ID", "docker://ID"). Both cgroup drivers and all QoS classes are
 * listed: the caller tries each under the cgroup2 mount. Pure function: inputs are validated
 * against strict patterns, so no candidate can leave the cgroup tree.
 */
public final class ContainerCgroupPaths {

    private static final Pattern POD_UID = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    private static final Pattern CONTAINER_ID = Pattern.compile("[0-9a-f]{12,64}");
    private static final List<String> QOS = List.of("guaranteed", "burstable", "besteffort");

    private ContainerCgroupPaths() {
    }

    public record ContainerRef(String runtime, String id) {
    }

    public static ContainerRef parseContainerId(String containerId) {
        if (containerId == null) {
            throw new IllegalArgumentException("target.containerId is required with target.podUid");
        }
        String runtime = "containerd";
        String id = containerId;
        int sep = containerId.indexOf("://");
        if (sep >= 0) {
            runtime = containerId.substring(0, sep).toLowerCase(Locale.ROOT);
            id = containerId.substring(sep + 3);
        }
        if (!CONTAINER_ID.matcher(id).matches()) {
            throw new IllegalArgumentException("target.containerId '" + containerId
                    + "' is invalid: expected RUNTIME://HEX (12-64 lower-case hex digits)");
        }
        if (!List.of("containerd", "cri-o", "docker").contains(runtime)) {
            throw new IllegalArgumentException("target.containerId runtime '" + runtime
                    + "' is not supported (containerd, cri-o, docker)");
        }
        return new ContainerRef(runtime, id);
    }

    public static String validatePodUid(String podUid) {
        if (podUid == null || !POD_UID.matcher(podUid).matches()) {
            throw new IllegalArgumentException("target.podUid '" + podUid + "' is invalid: expected a lower-case UUID");
        }
        return podUid;
    }

    /** Candidate paths relative to the cgroup2 mount, most likely first. */
    public static List<String> candidates(String podUid, String containerId) {
        String uid = validatePodUid(podUid);
        ContainerRef c = parseContainerId(containerId);
        String scope = switch (c.runtime()) {
            case "cri-o" -> "crio-" + c.id() + ".scope";
            case "docker" -> "docker-" + c.id() + ".scope";
            default -> "cri-containerd-" + c.id() + ".scope";
        };
        String uidUnderscored = uid.replace('-', '_');
        List<String> out = new ArrayList<>();
        for (String qos : QOS) {
            // systemd cgroup driver
            if (qos.equals("guaranteed")) {
                out.add("kubepods.slice/kubepods-pod" + uidUnderscored + ".slice/" + scope);
            } else {
                out.add("kubepods.slice/kubepods-" + qos + ".slice/kubepods-" + qos + "-pod" + uidUnderscored
                        + ".slice/" + scope);
            }
        }
        for (String qos : QOS) {
            // cgroupfs cgroup driver
            String pod = qos.equals("guaranteed") ? "kubepods/pod" + uid : "kubepods/" + qos + "/pod" + uid;
            out.add(pod + "/" + c.id());
        }
        return out;
    }
}
