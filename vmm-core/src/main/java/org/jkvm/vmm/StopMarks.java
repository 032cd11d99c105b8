package org.jkvm.vmm;

import java.lang.System.Logger.Level;

/**
 * Where the time goes between the end of a VM (a stop request, the guest powering off) and the
 * release of its vCPUs and memory: each {@link #mark} logs at DEBUG how long after the end a
 * step ended ({@code jkvm --log-level debug run ...}). At other levels a mark costs one level
 * check.
 */
public final class StopMarks {
    private static final System.Logger LOG = System.getLogger(StopMarks.class.getName());
    /** System.nanoTime() when the last VM ended; 0 before any did. */
    private static volatile long ended;

    private StopMarks() {}

    /** Notes that a VM has just ended (once per VM): later marks are timed from now. */
    public static void ended() {
        if (LOG.isLoggable(Level.DEBUG)) ended = System.nanoTime();
    }

    /** Logs that {@code step} of the shutdown has just ended. */
    public static void mark(String step) {
        long t = ended;
        if (t == 0 || !LOG.isLoggable(Level.DEBUG)) return;
        LOG.log(Level.DEBUG, "stop: " + step + " at +" + (System.nanoTime() - t) / 1_000_000 + " ms");
    }
}
