package org.jkvm.kvm;

import java.util.TreeSet;

/**
 * Opens a tap as virtio-net's backend does, for the container tier: prints {@code tap NAME
 * offloads [..]} (in declaration order) and exits 0, or prints {@code error} and the message jkvm gives a user and exits 1.
 * Usage: {@code TapProbe NAME}.
 */
public final class TapProbe {
    private TapProbe() {}

    public static void main(String[] args) {
        try (Tap tap = Tap.open(args[0])) {
            System.out.println("tap " + tap.name() + " offloads " + new TreeSet<>(tap.offered()));
        } catch (KvmException e) {
            System.out.println("error " + e.getMessage());
            System.exit(1);
        }
    }
}
