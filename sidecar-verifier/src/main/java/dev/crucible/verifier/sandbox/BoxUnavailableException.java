package dev.crucible.verifier.sandbox;

import java.io.IOException;

/** bubblewrap cannot make a box on this machine; the message says why. */
public final class BoxUnavailableException extends IOException {
    public BoxUnavailableException(String why) { super(why); }
}
