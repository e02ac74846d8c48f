package dev.crucible.files;

import java.io.IOException;

/**
 * A file an untrusted party made that {@link BoundedRead} would not read: what it found there
 * ({@link Kind}) and the path, relative to the root. The message names both and never holds a byte
 * of the file, nor of anything a link pointed at.
 */
public final class FileRefusal extends IOException {
    /** Why the read was refused; {@link #hostile()} says which mean the file was built against the reader. */
    public enum Kind {
        LINK_OUT("a link leading out of the root"),
        FIFO("a FIFO"),
        DEVICE("a device"),
        SOCKET("a socket"),
        SPECIAL("a special file"),
        TOO_BIG("larger than the reader's bound"),
        STALLED("a read that did not finish in time (an open blocked, as on a FIFO swapped in)"),
        /** Past its deadline with no open blocked: the machine was slow, nothing the file did (not hostile). */
        SLOW("a read that did not finish in time on a slow machine (no open was blocked)"),
        RACED("replaced by a link or special file while it was read");

        private final String words;

        Kind(String words) {
            this.words = words;
        }

        public String words() {
            return words;
        }
    }

    private final Kind kind;
    private final String path;

    public FileRefusal(Kind kind, String path, String detail) {
        super(path + ": " + kind.words() + (detail == null || detail.isEmpty() ? "" : " (" + detail + ")") + "; not read");
        this.kind = kind;
        this.path = path;
    }

    public Kind kind() {
        return kind;
    }

    /** The path as the caller named it, relative to the reader's root. */
    public String path() {
        return path;
    }

    /** Everything but {@link Kind#TOO_BIG}: a plain big file is ordinary, the rest only comes from a file made to trap a reader. */
    public boolean hostile() {
        return kind != Kind.TOO_BIG && kind != Kind.SLOW;
    }
}
