package org.jkvm.kvm;

import java.nio.file.Path;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Errors a user meets before any VM exists name the problem and the fix. */
@Tag("unit")
class KvmOpenErrorsTest {
    @Test
    void aMissingDeviceNodeSaysSoAndWhatToDo() {
        KvmException e = assertThrows(KvmException.class, () -> Kvm.open(Path.of("/nonexistent/kvm")));
        assertEquals("ENOENT", e.errnoName());
        assertEquals("open", e.operation());
        assertTrue(e.getMessage().contains("/nonexistent/kvm"), e.getMessage());
        assertTrue(e.getMessage().contains("offers no KVM"), e.getMessage());
    }

    @Test
    void aFileThatIsNotKvmFailsTheApiVersionIoctlByName() {
        KvmException e = assertThrows(KvmException.class, () -> Kvm.open(Path.of("/dev/null")));
        assertEquals("KVM_GET_API_VERSION", e.operation());
        assertEquals("ENOTTY", e.errnoName());
    }

    @Test
    void theHostArchitectureIsOneWithBindings() {
        Arch a = Arch.host();
        assertTrue(a == Arch.X86_64 || a == Arch.AARCH64);
        assertThrows(IllegalStateException.class, () -> Arch.of("riscv64"));
    }
}
