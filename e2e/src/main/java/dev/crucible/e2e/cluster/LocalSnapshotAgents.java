package dev.crucible.e2e.cluster;

import dev.crucible.controllers.snapshot.SnapshotAgents;
import dev.crucible.snapshot.agent.AgentServer;
import dev.crucible.snapshot.agent.BearerTokenAuth;
import dev.crucible.snapshot.client.SnapshotAgentClient;
import dev.crucible.snapshot.engine.EngineBuilder;
import dev.crucible.snapshot.client.api.RestoreRequest;
import dev.crucible.snapshot.client.api.RestoreResult;
import dev.crucible.snapshot.engine.SnapshotEngine;
import dev.crucible.snapshot.client.api.TargetSpec;
import io.fabric8.kubernetes.api.model.Pod;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Snapshot agents for the kwok tier: kwok's pods run no processes, so each fake node is served by a
 * real agent (Vert.x API + CRIU engine) running in this JVM, and a test binds each pod to a real
 * local process tree and workspace directory. The operator talks to them over HTTP with the token
 * exactly as it talks to the DaemonSet in a cluster.
 */
public final class LocalSnapshotAgents implements SnapshotAgents, AutoCloseable {

    public static final String TOKEN = "e2e-operator-token-5f2a9c0d7e1b4a63";

    /** One agent process stand-in: its engine, its server, and the operator's client for it. */
    public record Agent(SnapshotEngine engine, AgentServer server, SnapshotAgentClient client, Path workspaceRoot) {
    }

    private record Binding(long pid, String workspace) {
    }

    private final Map<String, Agent> byNode = new ConcurrentHashMap<>();
    private final Map<String, Binding> byPod = new ConcurrentHashMap<>();

    /** Starts a real agent on 127.0.0.1 with its own image store and serves {@code nodes} with it. */
    public Agent start(Path store, Path workspaceRoot, String... nodes) {
        SnapshotEngine engine = new EngineBuilder().store(store).workspaceRoot(workspaceRoot).build();
        AgentServer server = new AgentServer(engine, new BearerTokenAuth(TOKEN));
        int port = server.start("127.0.0.1", 0);
        Agent agent = new Agent(engine, server,
                new SnapshotAgentClient(URI.create("http://127.0.0.1:" + port), TOKEN, Duration.ofMinutes(2)), workspaceRoot);
        for (String node : nodes) {
            byNode.put(node, agent);
        }
        return agent;
    }

    /** The pod {@code namespace/name} is the process tree rooted at {@code pid}, working in {@code workspace}. */
    public void bind(String namespace, String pod, long pid, Path workspace) {
        byPod.put(namespace + "/" + pod, new Binding(pid, workspace == null ? null : workspace.toString()));
    }

    public void unbindNode(String node) {
        Agent a = byNode.remove(node);
        if (a != null && !byNode.containsValue(a)) {
            a.server().close();
            a.engine().close();
        }
    }

    @Override
    public SnapshotAgentClient agentOn(String node) {
        Agent a = byNode.get(node);
        if (a == null) {
            throw new Unavailable("no snapshot agent on node " + node);
        }
        return a.client();
    }

    @Override
    public TargetSpec target(Pod pod, String container) {
        return TargetSpec.ofPid(binding(pod).pid());
    }

    @Override
    public String workspace(Pod pod) {
        return binding(pod).workspace();
    }

    /** The restored tree becomes the pod's process, in a fresh workspace of its own (a branch). */
    @Override
    public String restore(Pod pod, String container, String snapshotId, java.util.List<dev.crucible.snapshot.client.api.WorkspacePatch> patches,
                          boolean processes) {
        String node = pod.getSpec().getNodeName();
        Agent a = byNode.get(node);
        if (a == null) {
            throw new Unavailable("no snapshot agent on node " + node);
        }
        Path out = a.workspaceRoot().resolve(pod.getMetadata().getNamespace() + "-" + pod.getMetadata().getName()
                + "-" + pod.getMetadata().getUid());
        try {
            java.nio.file.Files.createDirectories(out);
        } catch (java.io.IOException e) {
            throw new Unavailable("cannot create " + out + ": " + e.getMessage());
        }
        RestoreResult r = a.client().restore(new RestoreRequest(snapshotId, out.toString(), true, false, patches));
        if (!processes) {
            // Only the workspace: in a cluster the pod's own agent command now starts in it.
            bind(pod.getMetadata().getNamespace(), pod.getMetadata().getName(), 0, out);
            return "workspace on " + node;
        }
        bind(pod.getMetadata().getNamespace(), pod.getMetadata().getName(), r.pid(), out);
        return "pid " + r.pid() + " on " + node + " in " + r.restoreMs() + " ms";
    }

    /** The process now standing for the pod (tests check branches run independently). */
    public long pidOf(String namespace, String pod) {
        Binding b = byPod.get(namespace + "/" + pod);
        return b == null ? -1 : b.pid();
    }

    private Binding binding(Pod pod) {
        Binding b = byPod.get(pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName());
        if (b == null) {
            throw new Unavailable("pod " + pod.getMetadata().getName() + " has no local process bound to it");
        }
        return b;
    }

    @Override
    public void close() {
        for (String node : java.util.List.copyOf(byNode.keySet())) {
            unbindNode(node);
        }
    }
}
