package org.jkvm.vmm.memory;

import java.nio.file.Files;

import org.jkvm.kvm.Kvm;
import org.jkvm.kvm.KvmException;
import org.junit.jupiter.api.Assumptions;

/** What vmm-core's {@code kvm} tests need: a /dev/kvm that can be opened (any architecture). */
public final class KvmTier {
    private KvmTier() {}

    /** Opens /dev/kvm, or skips the calling test with the reason. */
    public static Kvm openOrSkip() {
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
