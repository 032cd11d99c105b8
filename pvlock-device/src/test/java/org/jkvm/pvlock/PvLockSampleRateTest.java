package org.jkvm.pvlock;

import org.jkvm.vmm.config.SettingException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Kernel mode's sampling rate ({@code --pvlock-sample}) is checked before any VM is built. */
@Tag("unit")
class PvLockSampleRateTest {
    @Test
    void zeroToOneThousandReadsASecondAreAccepted() {
        assertDoesNotThrow(() -> PvLockDevice.attaching(PvLockMode.KERNEL, 0));
        assertDoesNotThrow(() -> PvLockDevice.attaching(PvLockMode.KERNEL, PvLockDevice.MAX_SAMPLE_HZ));
        assertTrue(PvLockDevice.DEFAULT_SAMPLE_HZ > 0 && PvLockDevice.DEFAULT_SAMPLE_HZ <= PvLockDevice.MAX_SAMPLE_HZ);
    }

    @Test
    void otherRatesAreRefusedByName() {
        SettingException e = assertThrows(SettingException.class, () -> PvLockDevice.attaching(PvLockMode.KERNEL, 5000));
        assertTrue(e.getMessage().contains("pvlock-sample"), e.getMessage());
        assertThrows(SettingException.class, () -> PvLockDevice.attaching(PvLockMode.AUTO, -1));
    }
}
