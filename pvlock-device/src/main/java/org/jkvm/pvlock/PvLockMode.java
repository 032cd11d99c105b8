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
    OFF;

    /** Parses a mode name as users write it: auto, kernel, userspace, off. */
    public static PvLockMode parse(String text) {
        try {
            return valueOf(text.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new SettingException("pvlock", text, "unknown mode; use auto, kernel, userspace or off");
        }
    }

    /** The name users write. */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
