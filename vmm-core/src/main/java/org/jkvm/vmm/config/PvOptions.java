package org.jkvm.vmm.config;

import java.util.LinkedHashMap;
import java.util.SequencedMap;

/**
 * The paravirtual features a guest is offered, as {@code --pv name=on|off[,...]}.
 *
 * @param stealTime PV steal time (KVM_ARM_VCPU_PVTIME_CTRL), on by default where the host has it
 */
public record PvOptions(boolean stealTime) {
    /** The default: everything on (where the host offers it). */
    public static final PvOptions DEFAULT = new PvOptions(true);
    private static final String STEAL_TIME = "steal-time";

    /** Applies {@code name=on|off} settings, comma separated, to the defaults. */
    public static PvOptions parse(String text) {
        return new PvOptions(FeatureSwitches.parse("pv", text, DEFAULT.switches()).get(STEAL_TIME));
    }

    private SequencedMap<String, Boolean> switches() {
        SequencedMap<String, Boolean> s = new LinkedHashMap<>();
        s.put(STEAL_TIME, stealTime);
        return s;
    }

    /** The settings as {@code --pv} takes them, e.g. {@code steal-time=off} ({@link FeatureSwitches#text} says why not the record's own). */
    @Override
    public String toString() {
        return FeatureSwitches.text(switches());
    }
}
