package org.jkvm.experiment;

import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.jkvm.pvlock.TrackerCpus;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A run's record of whether its VMs' PV-lock threads had a host CPU of their own. */
@Tag("unit")
class PvLockThreadPlaceTest {
    private static Optional<TrackerCpus> on(String cpus, int busy) {
        BitSet set = new BitSet();
        for (String c : cpus.split(",")) set.set(Integer.parseInt(c));
        return Optional.of(new TrackerCpus(set, busy));
    }

    private static Map<String, Number> put(List<Optional<TrackerCpus>> vms) {
        Map<String, Number> host = new HashMap<>();
        PvLockThreadPlace.put(host, vms);
        return host;
    }

    @Test
    void oneVmWhoseThreadSharesTheVcpusCpusMakesTheRunShared() {
        assertEquals(Map.of(PvLockThreadPlace.OWN_CPU, 1), put(List.of(on("1", 0), on("0,1", 1))),
                "a CPU outside the pin, or one more than the vCPUs can keep busy");
        assertEquals(Map.of(PvLockThreadPlace.OWN_CPU, 0), put(List.of(on("1", 0), on("0,1", 2))),
                "4 vCPUs unpinned on 2 CPUs keep both busy");
    }

    @Test
    void aRunWithoutAPvLockThreadRecordsNothing() {
        assertEquals(Map.of(), put(List.of(Optional.empty(), Optional.empty())), "PV lock off, or kernel mode without sampling");
        assertEquals(Map.of(PvLockThreadPlace.OWN_CPU, 0), put(List.of(Optional.empty(), on("0", 1))));
    }
}
