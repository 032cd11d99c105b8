package org.jkvm.vmm.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.SequencedMap;

/**
 * The optional CPU features a guest's vCPUs are given, as {@code --cpu name=on|off[,...]}: each on
 * by default where the host's KVM offers it, as QEMU's {@code -cpu host} gives them, so a guest
 * sees what a guest of the same host under QEMU sees.
 *
 * @param ptrAuth pointer authentication (KVM_ARM_VCPU_PTRAUTH_ADDRESS and _GENERIC)
 * @param sve     the Scalable Vector Extension (KVM_ARM_VCPU_SVE), at the vector lengths the host offers
 */
public record CpuOptions(boolean ptrAuth, boolean sve) {
    /** The default: every feature on (where the host offers it). */
    public static final CpuOptions DEFAULT = new CpuOptions(true, true);
    private static final String PTRAUTH = "ptrauth", SVE = "sve";

    /** Applies {@code name=on|off} settings, comma separated, to the defaults. */
    public static CpuOptions parse(String text) {
        SequencedMap<String, Boolean> on = FeatureSwitches.parse("cpu", text, DEFAULT.switches());
        return new CpuOptions(on.get(PTRAUTH), on.get(SVE));
    }

    private SequencedMap<String, Boolean> switches() {
        SequencedMap<String, Boolean> s = new LinkedHashMap<>();
        s.put(PTRAUTH, ptrAuth);
        s.put(SVE, sve);
        return s;
    }

    /** The settings as {@code --cpu} takes them, e.g. {@code ptrauth=on,sve=off} ({@link FeatureSwitches#text} says why not the record's own). */
    @Override
    public String toString() {
        return FeatureSwitches.text(switches());
    }

    /** The features on, by the names {@link #parse} takes them. */
    public List<String> names() {
        List<String> on = new ArrayList<>();
        if (ptrAuth) on.add(PTRAUTH);
        if (sve) on.add(SVE);
        return List.copyOf(on);
    }
}
