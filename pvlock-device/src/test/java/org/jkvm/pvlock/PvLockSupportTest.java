package org.jkvm.pvlock;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which mode a --pvlock request becomes on hosts with and without the kernel series and the SMCCC filter. */
@Tag("unit")
class PvLockSupportTest {
    @Test
    void autoPicksKernelThenUserspaceThenOff() {
        assertEquals(PvLockMode.KERNEL, new PvLockSupport(true, true).resolve(PvLockMode.AUTO, true).mode());
        assertEquals(PvLockMode.KERNEL, new PvLockSupport(true, false).resolve(PvLockMode.AUTO, true).mode());
        assertEquals(PvLockMode.USERSPACE, new PvLockSupport(false, true).resolve(PvLockMode.AUTO, true).mode());
        PvLockSupport.Resolution off = new PvLockSupport(false, false).resolve(PvLockMode.AUTO, true);
        assertEquals(PvLockMode.OFF, off.mode());
        assertTrue(off.reason().contains("neither"), off.reason());
    }

    @Test
    void autoDoesNotTrackFromUserspaceWhereTheTrackerWouldHaveNoCpuOfItsOwn() {
        PvLockSupport.Resolution r = new PvLockSupport(false, true).resolve(PvLockMode.AUTO, false);
        assertEquals(PvLockMode.OFF, r.mode());
        assertTrue(r.reason().contains("--pvlock userspace") && r.reason().contains("--pin"), r.reason());
        assertEquals(PvLockMode.USERSPACE, new PvLockSupport(false, true).resolve(PvLockMode.USERSPACE, false).mode(),
                "asked for, it tracks anyway");
        assertEquals(PvLockMode.KERNEL, new PvLockSupport(true, true).resolve(PvLockMode.AUTO, false).mode(),
                "the kernel's flags need no tracker");
    }

    @Test
    void kernelModeOnAStockKernelIsRefusedNamingTheSeries() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new PvLockSupport(false, true).resolve(PvLockMode.KERNEL, true));
        assertTrue(e.getMessage().contains("lacks the PV-lock series"), e.getMessage());
    }

    @Test
    void userspaceModeWithoutTheSmcccFilterIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new PvLockSupport(true, false).resolve(PvLockMode.USERSPACE, true));
        assertTrue(e.getMessage().contains("SMCCC filter"), e.getMessage());
    }

    @Test
    void offIsAlwaysPossible() {
        assertEquals(PvLockMode.OFF, new PvLockSupport(false, false).resolve(PvLockMode.OFF, true).mode());
    }

    @Test
    void modeNamesParseAndUnknownOnesAreRefused() {
        assertEquals(PvLockMode.USERSPACE, PvLockMode.parse(" Userspace "));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PvLockMode.parse("fast"));
        assertTrue(e.getMessage().contains("auto, kernel, userspace or off"), e.getMessage());
    }
}
