package org.jkvm.vmm.config;

import java.util.List;

/**
 * The paravirtual features a guest is offered, as {@code --pv name=on|off[,...]}.
 *
 * @param stealTime PV steal time (KVM_ARM_VCPU_PVTIME_CTRL), on by default where the host has it
 */
public record PvOptions(boolean stealTime) {
    /** The default: everything on (where the host offers it). */
    public static final PvOptions DEFAULT = new PvOptions(true);

    /** The feature names {@link #parse} knows. */
    public static final List<String> NAMES = List.of("steal-time");

    /** Applies {@code name=on|off} settings, comma separated, to the defaults. */
    public static PvOptions parse(String text) {
        boolean stealTime = DEFAULT.stealTime();
        for (String item : text.split(",", -1)) {
            String it = item.strip();
            int eq = it.indexOf('=');
            String name = eq < 0 ? it : it.substring(0, eq);
            String value = eq < 0 ? "on" : it.substring(eq + 1);
            boolean on = switch (value) {
                case "on" -> true;
                case "off" -> false;
                default -> throw new SettingException("pv", it, "the value must be on or off");
            };
            switch (name) {
                case "steal-time" -> stealTime = on;
                default -> throw new SettingException("pv", it, "unknown feature '" + name
                        + "'; known: " + String.join(", ", NAMES));
            }
        }
        return new PvOptions(stealTime);
    }
}
