package org.jkvm.vmm.config;

/**
 * The console a Linux command line names: the last {@code console=} before a {@code --} (what
 * follows that goes to init) is the kernel's preferred console, /dev/console.
 */
public final class KernelConsole {
    private KernelConsole() {}

    /** The device of the last console= of {@code cmdline} without its options ({@code hvc0} of {@code console=hvc0,115200}), or "" when there is none. */
    public static String last(String cmdline) {
        String device = "";
        for (String param : cmdline.strip().split("\\s+")) {
            if (param.equals("--")) break;
            if (param.startsWith("console=")) device = param.substring("console=".length()).split(",", 2)[0];
        }
        return device;
    }
}
