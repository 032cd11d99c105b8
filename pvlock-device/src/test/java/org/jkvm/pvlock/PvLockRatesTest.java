package org.jkvm.pvlock;

import org.jkvm.vmm.config.SettingException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Kernel mode's sampling rate ({@code --pvlock-sample}) and the userspace tracker's batch period
 * ({@code --pvlock-batch}) are checked before any VM is built.
 */
@Tag("unit")
class PvLockRatesTest {
    @Test
    void zeroToOneThousandReadsASecondAreAccepted() {
        assertDoesNotThrow(() -> PvLockDevice.attaching(PvLockMode.KERNEL, 0, 0));
        assertDoesNotThrow(() -> PvLockDevice.attaching(PvLockMode.KERNEL, PvLockDevice.MAX_SAMPLE_HZ, 0));
        assertTrue(PvLockDevice.DEFAULT_SAMPLE_HZ > 0 && PvLockDevice.DEFAULT_SAMPLE_HZ <= PvLockDevice.MAX_SAMPLE_HZ);
    }

    @Test
    void otherRatesAreRefusedByName() {
        SettingException e = assertThrows(SettingException.class, () -> PvLockDevice.attaching(PvLockMode.KERNEL, 5000, 0));
        assertTrue(e.getMessage().contains("pvlock-sample"), e.getMessage());
        assertThrows(SettingException.class, () -> PvLockDevice.attaching(PvLockMode.AUTO, -1, 0));
    }

    @Test
    void batchPeriodsUpToTheLongestAreAcceptedAndOthersRefusedByName() {
        assertDoesNotThrow(() -> PvLockDevice.attaching(PvLockMode.USERSPACE, PvLockDevice.DEFAULT_SAMPLE_HZ, 0));
        assertDoesNotThrow(() -> PvLockDevice.attaching(PvLockMode.TRACK_ONLY, PvLockDevice.DEFAULT_SAMPLE_HZ,
                PvLockDevice.MAX_BATCH_MILLIS));
        SettingException e = assertThrows(SettingException.class, () -> PvLockDevice.attaching(PvLockMode.USERSPACE,
                PvLockDevice.DEFAULT_SAMPLE_HZ, PvLockDevice.MAX_BATCH_MILLIS + 1));
        assertTrue(e.getMessage().contains("pvlock-batch") && e.getMessage().contains("" + PvLockDevice.MAX_BATCH_MILLIS),
                e.getMessage());
        assertThrows(SettingException.class, () -> PvLockDevice.attaching(PvLockMode.USERSPACE, PvLockDevice.DEFAULT_SAMPLE_HZ, -1));
    }

    @Test
    void aBatchPeriodForAModeWithoutTrackerIsRefused() {
        SettingException e = assertThrows(SettingException.class,
                () -> PvLockDevice.attaching(PvLockMode.KERNEL, PvLockDevice.DEFAULT_SAMPLE_HZ, 4));
        assertTrue(e.getMessage().contains("pvlock kernel does not run") && e.getMessage().contains("track-only"), e.getMessage());
        assertThrows(SettingException.class, () -> PvLockDevice.attaching(PvLockMode.OFF, PvLockDevice.DEFAULT_SAMPLE_HZ, 4));
        assertDoesNotThrow(() -> PvLockDevice.attaching(PvLockMode.AUTO, PvLockDevice.DEFAULT_SAMPLE_HZ, 4),
                "auto may resolve to userspace");
        assertDoesNotThrow(() -> PvLockDevice.attaching(PvLockMode.OFF, PvLockDevice.DEFAULT_SAMPLE_HZ, 0));
    }
}
