package org.jkvm.experiment;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Optional;

/**
 * How long each host CPU has been idle so far, from {@code /proc/stat} (its idle and iowait
 * columns): read at a workload's two edges, it tells whether the CPUs the vCPUs run on were
 * busy through the window or sat idle while the guest waited.
 */
public final class HostIdle {
    private static final Path STAT = Path.of("/proc/stat");
    /** The unit of /proc/stat: USER_HZ, which Linux fixes at 100 on arm64 and x86_64 whatever the kernel's HZ. */
    private static final long NANOS_PER_TICK = 10_000_000;

    private final long[] ticks;

    /** Idle ticks per CPU index; -1 for a CPU the file does not list (offline). */
    HostIdle(long[] ticks) {
        this.ticks = ticks.clone();
    }

    /** The host's figures now; empty where /proc/stat cannot be read or parsed. */
    public static Optional<HostIdle> now() {
        try {
            return Optional.of(parse(Files.readString(STAT)));
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** Idle ticks per CPU index, -1 for a CPU not listed. */
    long[] ticks() {
        return ticks.clone();
    }

    /** Reads the {@code cpuN} lines of /proc/stat's text. */
    static HostIdle parse(String stat) {
        long[] ticks = new long[0];
        for (String line : stat.split("\n")) {
            if (!line.startsWith("cpu") || line.startsWith("cpu ")) continue;
            String[] f = line.trim().split("\\s+");
            if (f.length < 6) continue;
            int cpu = Integer.parseInt(f[0].substring(3));
            if (cpu >= ticks.length) {
                int old = ticks.length;
                ticks = Arrays.copyOf(ticks, cpu + 1);
                Arrays.fill(ticks, old, ticks.length, -1);
            }
            ticks[cpu] = Long.parseLong(f[4]) + Long.parseLong(f[5]);
        }
        return new HostIdle(ticks);
    }

    /**
     * Nanoseconds the CPUs in {@code cpus} were idle, summed, from here to {@code end}; a CPU
     * missing at either edge adds nothing. Whole ticks: 10 ms a CPU at most off at each edge.
     */
    public long idleNanos(HostIdle end, BitSet cpus) {
        long ticksIdle = 0;
        for (int cpu = cpus.nextSetBit(0); cpu >= 0; cpu = cpus.nextSetBit(cpu + 1)) {
            if (cpu >= ticks.length || cpu >= end.ticks.length || ticks[cpu] < 0 || end.ticks[cpu] < 0) continue;
            ticksIdle += end.ticks[cpu] - ticks[cpu];
        }
        return ticksIdle * NANOS_PER_TICK;
    }
}
