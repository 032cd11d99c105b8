package org.jkvm.vmm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;

/**
 * When this process started, to the hundredth of a second. {@code ProcessHandle.info().startInstant()}
 * adds the process's start in ticks since boot to the boot time of {@code /proc/stat}, which Linux
 * gives in whole seconds: its answer is up to a second early, the same error for every process of one
 * boot. Here both ends are measured since boot ({@code /proc/self/stat}'s start ticks against
 * {@code /proc/uptime}), so the boot time's rounding cancels out.
 */
final class ProcessStartTime {
    /** USER_HZ, the unit of /proc's tick counts: 100 in the ABI of every Linux architecture jkvm runs on. */
    private static final int TICKS_PER_SECOND = 100;
    /** The start time's field in /proc/[pid]/stat, counted from the first field after the command's closing parenthesis (state, field 3). */
    private static final int START_TICKS_AFTER_COMMAND = 22 - 3;

    private ProcessStartTime() {}

    /** This process's start, from /proc; where /proc cannot say, the JDK's coarser answer, else {@code fallbackMillis}. */
    static Instant current(long fallbackMillis) {
        try {
            long now = System.currentTimeMillis();
            String uptime = Files.readString(Path.of("/proc/uptime"));
            String stat = Files.readString(Path.of("/proc/self/stat"));
            return parse(stat, uptime, now).orElseGet(() -> jdkAnswer(fallbackMillis));
        } catch (IOException | RuntimeException e) {
            return jdkAnswer(fallbackMillis);
        }
    }

    /**
     * The start of the process {@code stat} describes, in epoch milliseconds, given {@code uptime}
     * read at {@code nowMillis}; empty if either text is not what Linux writes there.
     */
    static Optional<Instant> parse(String stat, String uptime, long nowMillis) {
        // The command (field 2) is in parentheses and may itself hold spaces and parentheses.
        int end = stat.lastIndexOf(')');
        String[] uptimeFields = uptime.trim().split("\\s+");
        if (end < 0 || uptimeFields.length == 0) return Optional.empty();
        String[] after = stat.substring(end + 1).trim().split("\\s+");
        if (after.length <= START_TICKS_AFTER_COMMAND) return Optional.empty();
        try {
            long startTicks = Long.parseLong(after[START_TICKS_AFTER_COMMAND]);
            long sinceBootMillis = Math.round(Double.parseDouble(uptimeFields[0]) * 1000);
            long startSinceBootMillis = startTicks * 1000 / TICKS_PER_SECOND;
            if (startSinceBootMillis > sinceBootMillis) return Optional.empty();
            return Optional.of(Instant.ofEpochMilli(nowMillis - (sinceBootMillis - startSinceBootMillis)));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static Instant jdkAnswer(long fallbackMillis) {
        return ProcessHandle.current().info().startInstant().orElse(Instant.ofEpochMilli(fallbackMillis));
    }
}
