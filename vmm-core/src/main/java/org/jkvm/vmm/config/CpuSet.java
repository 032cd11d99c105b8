package org.jkvm.vmm.config;

import java.util.BitSet;

/** Host CPU sets as taskset and cgroups write them: "0", "0-3", "0,2,4-7". */
public final class CpuSet {
    private CpuSet() {}

    /** The largest CPU number accepted. */
    public static final int MAX_CPU = 8191;

    /** Parses a CPU list. */
    public static BitSet parse(String text) {
        BitSet set = new BitSet();
        for (String part : text.strip().split(",", -1)) {
            String p = part.strip();
            try {
                int dash = p.indexOf('-');
                int from = Integer.parseInt(dash < 0 ? p : p.substring(0, dash).strip());
                int to = dash < 0 ? from : Integer.parseInt(p.substring(dash + 1).strip());
                if (from < 0 || to < from || to > MAX_CPU) throw new NumberFormatException();
                set.set(from, to + 1);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + text + "' is not a CPU list: write e.g. 0, 0-3 or 0,2,4-7");
            }
        }
        return set;
    }

    /**
     * Refuses a pin set naming a CPU outside {@code allowed}, the CPUs this process may run on
     * (sched_getaffinity): sched_setaffinity would quietly pin to the rest, or fail in a vCPU thread.
     *
     * @param setting the setting that gave the set ("pin", "vmm-pin"), named in the error
     * @throws SettingException for {@code setting}, naming the CPUs that are not allowed
     */
    public static void checkWithin(String setting, BitSet pin, BitSet allowed) {
        BitSet missing = (BitSet) pin.clone();
        missing.andNot(allowed);
        if (!missing.isEmpty()) {
            throw new SettingException(setting, format(pin), "this process may run on CPUs " + format(allowed) + " only; "
                    + format(missing) + (missing.cardinality() == 1 ? " is" : " are") + " not among them");
        }
    }

    /**
     * Refuses a set for the rest of jkvm (its JVM, devices and PV-lock thread) that shares a CPU
     * with the set the vCPU threads are pinned to: those threads would preempt the vCPUs there.
     *
     * @param setting the setting that gave {@code vmmPin} ("vmm-pin", "vmm_pin"), named in the error
     * @param pinName how the vCPUs' pin is called where it was given ("--pin", "variants[2].pin")
     * @throws SettingException for {@code setting}, naming the CPUs the two share
     */
    public static void checkApart(String setting, BitSet vmmPin, String pinName, BitSet pin) {
        BitSet shared = (BitSet) vmmPin.clone();
        shared.and(pin);
        if (!shared.isEmpty()) {
            throw new SettingException(setting, format(vmmPin), "shares " + (shared.cardinality() == 1 ? "CPU " : "CPUs ")
                    + format(shared) + " with " + pinName + " " + format(pin) + ": give the rest of jkvm CPUs outside " + pinName);
        }
    }

    /** Writes a set back in the same notation. */
    public static String format(BitSet set) {
        StringBuilder sb = new StringBuilder();
        for (int from = set.nextSetBit(0); from >= 0; ) {
            int to = set.nextClearBit(from) - 1;
            if (!sb.isEmpty()) sb.append(',');
            sb.append(from);
            if (to > from) sb.append('-').append(to);
            from = set.nextSetBit(to + 1);
        }
        return sb.toString();
    }
}
