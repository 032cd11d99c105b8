package org.jkvm.vmm.kvmstats;

import java.util.List;

import org.jkvm.kvm.StatDescriptor;
import org.jkvm.kvm.StatDescriptor.Type;
import org.jkvm.kvm.StatDescriptor.Unit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A window's changes: deltas of what accumulates, end values of instants and peaks. */
@Tag("unit")
class KvmStatsWindowTest {
    private static final StatDescriptor EXITS = new StatDescriptor("exits", Type.CUMULATIVE, Unit.NONE, 10, 0, 1, 0, 0);
    private static final StatDescriptor PAGES = new StatDescriptor("pages", Type.INSTANT, Unit.NONE, 10, 0, 1, 1, 0);
    private static final StatDescriptor PEAK = new StatDescriptor("max_wait", Type.PEAK, Unit.SECONDS, 10, -9, 1, 2, 0);
    private static final StatDescriptor HIST = new StatDescriptor("wait_hist", Type.LOG_HIST, Unit.SECONDS, 10, -9, 4, 3, 0);
    private static final List<StatDescriptor> ALL = List.of(EXITS, PAGES, PEAK, HIST);

    @Test
    void countersAndHistogramsAreDeltasInstantsAndPeaksAreTheirValuesAtTheEnd() {
        KvmStatsSnapshot start = new KvmStatsSnapshot(new long[] {100, 7, 50, 1, 2, 0, 0},
                List.of(new long[] {5, 0, 0, 0, 0, 0, 0}));
        KvmStatsSnapshot end = new KvmStatsSnapshot(new long[] {130, 3, 80, 4, 2, 1, 0},
                List.of(new long[] {9, 0, 0, 0, 0, 0, 0}));
        KvmStatsWindow w = KvmStatsWindow.between(ALL, List.of(List.of(EXITS)), start, end);

        assertTrue(w.unavailable().isEmpty());
        assertEquals(List.of("exits", "pages", "max_wait", "wait_hist"), List.copyOf(w.vm().keySet()));
        assertEquals(30, w.vm().get("exits").value());
        assertEquals(3, w.vm().get("pages").value());
        assertEquals(80, w.vm().get("max_wait").value());
        assertTrue(w.vm().get("wait_hist").histogram());
        assertArrayEquals(new long[] {3, 0, 1}, w.vm().get("wait_hist").buckets(), "trailing empty buckets dropped");
        assertEquals(4, w.vm().get("wait_hist").value());
        assertEquals(4, w.vcpus().getFirst().get("exits").value());
        assertEquals(4, w.vcpuTotal("exits"));
        assertEquals(0, w.vcpuTotal("no_such_stat"));
    }

    @Test
    void anUnavailableWindowSaysWhyAndHasNoValues() {
        KvmStatsWindow w = KvmStatsWindow.unavailable("no binary stats");
        assertEquals("no binary stats", w.unavailable().orElseThrow());
        assertTrue(w.vm().isEmpty());
        assertTrue(w.vcpus().isEmpty());
        assertFalse(w.vm().containsKey("exits"));
    }
}
