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
    void offAndTrackOnlyAreAlwaysPossible() {
        assertEquals(PvLockMode.OFF, new PvLockSupport(false, false).resolve(PvLockMode.OFF, true).mode());
        PvLockSupport.Resolution t = new PvLockSupport(false, false).resolve(PvLockMode.TRACK_ONLY, false);
        assertEquals(PvLockMode.TRACK_ONLY, t.mode(), "nothing is offered, so neither the series nor the filter is needed");
        assertTrue(t.reason().contains("not offered"), t.reason());
    }

    @Test
    void modeNamesParseAndUnknownOnesAreRefused() {
        assertEquals(PvLockMode.USERSPACE, PvLockMode.parse(" Userspace "));
        assertEquals(PvLockMode.TRACK_ONLY, PvLockMode.parse("track-only"));
        assertEquals("track-only", PvLockMode.TRACK_ONLY.cliName());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PvLockMode.parse("fast"));
        assertTrue(e.getMessage().contains("auto, kernel, userspace, off or track-only"), e.getMessage());
    }
}
