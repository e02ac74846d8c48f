package dev.crucible.verifier.monitor;

import java.time.Instant;

/**
 * What the live monitor sees, handed on as it sees it (the trajectory recorder is one such observer). Called from
 * the monitor's threads; an observer must be quick and must not throw (what it throws is dropped).
 * {@code content} is the changed file's bytes when it is a regular file of at most {@link ChangeFeed#MAX_CONTENT} bytes,
 * else null; {@code sha256} is the content hash when it could be read (null for links, refused or huge files).
 */
public interface MonitorObserver {
    /** A process of the agent first seen ({@code root}: one registered with {@link HackMonitor#watchProcess}). */
    default void processSeen(long pid, long ppid, String command, String cwd, Instant start, boolean root) { }

    /** It is gone (its exit status is not observable by sampling). */
    default void processGone(long pid) { }

    /** A workspace file added, modified or deleted since the last scan ({@code type}: file, link, other; null when deleted). */
    default void fileChanged(String path, String op, String type, long size, Instant modified, String sha256, byte[] content) { }

    /** A finding, after the hack policy (it may also be delivered to the episode's listener). */
    default void finding(Finding f) { }
}
