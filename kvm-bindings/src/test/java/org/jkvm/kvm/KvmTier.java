package org.jkvm.kvm;

import java.nio.file.Files;

import org.junit.jupiter.api.Assumptions;

/** What the {@code kvm} tier needs: an x86_64 host whose /dev/kvm can be opened. */
final class KvmTier {
    private KvmTier() {}

    /** Opens /dev/kvm, or skips the calling test with the reason. */
    static Kvm openOrSkip() {
        Assumptions.assumeTrue(Arch.host() == Arch.X86_64,
                () -> skip("the tiny guests of this tier are x86_64 code; this host is " + Arch.host()));
        Assumptions.assumeTrue(Files.exists(Kvm.DEFAULT_PATH), () -> skip("this machine has no /dev/kvm"));
        try {
            return Kvm.open();
        } catch (KvmException e) {
            Assumptions.abort(skip("/dev/kvm cannot be opened: " + e.getMessage()));
            throw e;
        }
    }

    private static String skip(String why) {
        String msg = "kvm tier skipped: " + why;
        System.err.println(msg);
        return msg;
    }
}
