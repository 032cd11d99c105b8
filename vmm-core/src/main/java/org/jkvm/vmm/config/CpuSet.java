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
