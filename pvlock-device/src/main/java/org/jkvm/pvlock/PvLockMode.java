package org.jkvm.pvlock;

import java.util.Locale;

import org.jkvm.vmm.config.SettingException;

/** How jkvm gives a guest the PV-lock {@code preempted} flags ({@code --pvlock}). */
public enum PvLockMode {
    /** {@link #KERNEL} where the host kernel has the attribute, else {@link #USERSPACE} where the SMCCC filter exists, else {@link #OFF}. */
    AUTO,
    /** The host kernel (with the PV-lock series) writes {@code preempted} on vCPU load and put. */
    KERNEL,
    /** jkvm writes {@code preempted} itself, from the vCPU threads' context switches. */
    USERSPACE,
    /** Nothing is advertised; a guest that asks gets NOT_SUPPORTED. */
    OFF,
    /**
     * A control for experiments: jkvm tracks the vCPU threads' preemptions and writes the flags
     * as {@link #USERSPACE} does, from the start, but offers the guest nothing, as {@link #OFF};
     * against OFF it shows what the tracker costs, against USERSPACE what the guest's use of its
     * flags does.
     */
    TRACK_ONLY;

    /** Parses a mode name as users write it: auto, kernel, userspace, off, track-only. */
    public static PvLockMode parse(String text) {
        try {
            return valueOf(text.strip().toUpperCase(Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException e) {
            throw new SettingException("pvlock", text, "unknown mode; use auto, kernel, userspace, off or track-only");
        }
    }

    /** The name users write. */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * Whether this mode can run the userspace tracker, which {@code --pvlock-batch} paces: userspace,
     * track-only, and auto where it resolves to userspace.
     */
    public boolean mayTrack() {
        return this != OFF && this != KERNEL;
    }
}
