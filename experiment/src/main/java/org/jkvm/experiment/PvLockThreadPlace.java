package org.jkvm.experiment;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.jkvm.pvlock.TrackerCpus;

/**
 * Whether jkvm's PV-lock thread (userspace mode's tracker, kernel mode's flag sampler) had a host
 * CPU of its own in a run. Without one each of its wake-ups can preempt a vCPU whose preemption it
 * measures: an idle 4-vCPU guest unpinned on 2 host CPUs waited 1.4-2.7x as long in userspace mode
 * as in kernel mode (kernel/NOTES.md, I1), so a reader of the figures should know.
 */
final class PvLockThreadPlace {
    static final String OWN_CPU = "pvlock_thread_own_cpu";

    private PvLockThreadPlace() {}

    /** Adds 1 where every VM's PV-lock thread had a CPU of its own, 0 where one had not; nothing where none ran. */
    static void put(Map<String, Number> host, List<Optional<TrackerCpus>> vmThreads) {
        List<TrackerCpus> ran = vmThreads.stream().flatMap(Optional::stream).toList();
        if (ran.isEmpty()) return;
        host.put(OWN_CPU, ran.stream().allMatch(TrackerCpus::ownCpu) ? 1 : 0);
    }

    /** Notes each variant with results whose PV-lock thread shared the vCPUs' CPUs (results that record none are passed over). */
    static void notes(Map<String, Map<String, List<RunResult>>> byCell, List<String> notes) {
        Map<String, int[]> sharedOfRecorded = new LinkedHashMap<>();
        for (Map<String, List<RunResult>> cells : byCell.values()) {
            cells.forEach((variant, runs) -> {
                for (RunResult r : runs) {
                    Number own = r.host().get(OWN_CPU);
                    if (own == null) continue;
                    int[] n = sharedOfRecorded.computeIfAbsent(variant, k -> new int[2]);
                    if (own.intValue() == 0) n[0]++;
                    n[1]++;
                }
            });
        }
        sharedOfRecorded.forEach((variant, n) -> {
            if (n[0] > 0) {
                notes.add(variant + ": in " + n[0] + " of " + n[1] + " results the PV-lock thread (tracker or sampler) had no"
                        + " host CPU of its own, so its wake-ups could preempt the vCPUs it measured; pin the vCPUs to"
                        + " fewer CPUs than jkvm has, or give vmm_pin a CPU outside them");
            }
        });
    }
}
