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

    /** Applies {@code name=on|off} settings, comma separated, to the defaults. */
    public static PvOptions parse(String text) {
        SequencedMap<String, Boolean> defaults = new LinkedHashMap<>();
        defaults.put("steal-time", DEFAULT.stealTime());
        return new PvOptions(FeatureSwitches.parse("pv", text, defaults).get("steal-time"));
    }
}
