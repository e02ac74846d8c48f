package dev.crucible.trajectory;

import java.util.Set;

/** The kinds of {@link TraceEvent}, named once: the recorder's callers, the timeline filters and the ATIF export use these. */
public final class EventKind {
    private EventKind() {}

    /** A process of the agent was first seen (embedded: sampled from /proc; the agent's root when it starts). */
    public static final String PROCESS_START = "process.start";
    /** It was gone (exit status when this JVM waited for it, else null: a sampled process's status is not observable). */
    public static final String PROCESS_END = "process.end";
    /** A timed chunk of the agent's standard output and error. */
    public static final String OUTPUT = "output";
    /** A workspace change the monitor saw: path, op, size, hash, bounded diff. */
    public static final String FILE = "file";
    /** A reward-hack finding, {@code cause} the event that caused it where one is known. */
    public static final String FINDING = "finding";
    /** Interactive mode: an environment-API call. */
    public static final String RESET = "reset";
    public static final String STEP = "step";
    public static final String VERIFY = "verify";
    /** Snapshots and restores (id, parent, trigger). */
    public static final String SNAPSHOT = "snapshot";
    /** Grading: the command and per-test results. */
    public static final String GRADING = "grading";
    /** The rollout's end: phase, reason, reward. */
    public static final String OUTCOME = "outcome";
    /** A step of the agent framework's own trajectory, handed in (messages, reasoning, tool calls). */
    public static final String AGENT_STEP = "agent.step";
    /** The recorder's own notes: the cap was reached; a write failed; the summary at the end. */
    public static final String CAP = "trajectory.cap";
    public static final String PROBLEM = "trajectory.problem";
    public static final String END = "trajectory.end";

    public static final Set<String> ALL = Set.of(PROCESS_START, PROCESS_END, OUTPUT, FILE, FINDING, RESET, STEP, VERIFY, SNAPSHOT,
            GRADING, OUTCOME, AGENT_STEP, CAP, PROBLEM, END);
}
