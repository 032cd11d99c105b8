package org.jkvm.vmm;

import java.lang.System.Logger.Level;
import java.time.Instant;

/**
 * Where jkvm's start-up time goes, from the process's start to the first KVM_RUN: each
 * {@link #mark} logs at DEBUG how long after the process started a step ended and how long it
 * took since the previous mark ({@code jkvm --log-level debug run ...}). At other levels a mark
 * costs one level check.
 */
public final class StartupMarks {
    private static final System.Logger LOG = System.getLogger(StartupMarks.class.getName());
    private static Instant processStart;
    private static long previous;

    private StartupMarks() {}

    /** Logs that {@code step} has just ended. */
    public static void mark(String step) {
        mark(step, System.currentTimeMillis());
    }

    /** Logs that {@code step} ended at {@code now} (epoch milliseconds): for a step that ended before logging was set up. */
    public static void mark(String step, long now) {
        if (!LOG.isLoggable(Level.DEBUG)) return;
        long since;
        synchronized (StartupMarks.class) {
            if (processStart == null) {
                processStart = ProcessStartTime.current(now);
                previous = processStart.toEpochMilli();
            }
            since = now - previous;
            previous = now;
        }
        LOG.log(Level.DEBUG, "start-up: " + step + " at " + (now - processStart.toEpochMilli()) + " ms (+" + since + " ms)");
    }
}
