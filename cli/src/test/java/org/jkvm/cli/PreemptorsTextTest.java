package org.jkvm.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.BitSet;
import java.util.List;

import org.jkvm.pvlock.Preemptors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The first line of {@code --preemptors}' tally says when it is short, and why. */
@Tag("unit")
class PreemptorsTextTest {

    private static String firstLine(long lost, long ringsFull) {
        BitSet cpus = new BitSet();
        cpus.set(0, 2);
        StringWriter out = new StringWriter();
        PreemptorsText.print(new PrintWriter(out), new Preemptors(cpus, 12, 3_456_000_000L, List.of(), lost, ringsFull), "");
        return out.toString().lines().findFirst().orElseThrow();
    }

    @Test
    void aCompleteTallySaysNothingOfLosses() {
        assertEquals("jkvm: preemptors: 12 preemptions of vCPU threads on host CPUs 0-1, 3.456 s waited behind:", firstLine(0, 0));
    }

    @Test
    void aTallyShortByTheKernelsNoticesSaysHowMany() {
        assertEquals("jkvm: preemptors: 12 preemptions of vCPU threads on host CPUs 0-1, 3.456 s waited behind:"
                + " (7 switch records lost: rings full, the tally is short)", firstLine(7, 0));
    }

    @Test
    void aRingFoundFullIsToldEvenWhereNoNoticeCountedWhatWentMissing() {
        assertEquals("jkvm: preemptors: 12 preemptions of vCPU threads on host CPUs 0-1, 3.456 s waited behind:"
                + " (0 switch records lost, rings found full 2 times: the tally is short)", firstLine(0, 2));
    }
}
