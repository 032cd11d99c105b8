package org.jkvm.vmm;

import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.util.Optional;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The process's start from /proc: both ends since boot, so the boot time's whole seconds do not shift it. */
class ProcessStartTimeTest {
    /** A stat line whose command holds spaces and parentheses; its start is 30332 ticks (303.32 s) after boot. */
    private static final String STAT = "11978 (a) (b c) R 11931 11931 1180 0 -1 4194304 125 0 0 0 0 0 0 0 20 0 1 0 30332"
            + " 3133440 415 18446744073709551615 93879378378752 93879378398633\n";

    @Tag("unit")
    @Test
    void startIsUptimeMinusStartTicksBeforeNow() {
        Optional<Instant> start = ProcessStartTime.parse(STAT, "310.57 601.20\n", 1_000_000L);
        assertEquals(Optional.of(Instant.ofEpochMilli(1_000_000L - 7_250)), start);
    }

    @Tag("unit")
    @Test
    void textsLinuxDoesNotWriteGiveNoAnswer() {
        assertEquals(Optional.empty(), ProcessStartTime.parse("11978 (cat R 1 2", "310.57 601.20", 0));
        assertEquals(Optional.empty(), ProcessStartTime.parse(STAT, "", 0));
        assertEquals(Optional.empty(), ProcessStartTime.parse(STAT, "up 5 min", 0));
        assertEquals(Optional.empty(), ProcessStartTime.parse(STAT, "300.00 1.00", 0), "a start after now");
    }

    @Tag("unit")
    @Test
    void thisProcessStartedJustBeforeItsJvm() {
        // The JVM records its own start, to the millisecond, once the launcher has loaded it: a start
        // from the boot time's whole seconds (the JDK's ProcessHandle) is up to a second before that.
        long jvmStart = ManagementFactory.getRuntimeMXBean().getStartTime();
        long start = ProcessStartTime.current(0).toEpochMilli();
        assertTrue(start <= jvmStart + 20, "started " + (start - jvmStart) + " ms after the JVM did");
        assertTrue(jvmStart - start < 500, "started " + (jvmStart - start) + " ms before the JVM did");
    }
}
