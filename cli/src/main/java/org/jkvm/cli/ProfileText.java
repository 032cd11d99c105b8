package org.jkvm.cli;

import java.io.PrintWriter;
import java.util.List;

import org.jkvm.vmm.kvmstats.KvmStatsWindow;
import org.jkvm.vmm.kvmstats.StatChange;
import org.jkvm.vmm.profile.CategoryRollup;
import org.jkvm.vmm.profile.ProfileReport;
import org.jkvm.vmm.profile.SymbolShare;

/** The guest profile as {@code jkvm run --profile} prints it on stderr. */
final class ProfileText {
    private ProfileText() {}

    static void print(PrintWriter err, ProfileReport r, CategoryRollup categories, KvmStatsWindow kvm) {
        err.printf("jkvm: profile: %d on-CPU samples; %s; each cost its vCPU thread %.1f us (median; mean %.1f, max %.1f)%n",
                r.samples(), r.symbolisation(), r.medianCost() / 1e3, r.cost().getAverage() / 1e3, r.cost().getMax() / 1e3);
        for (ProfileReport.VcpuProfile v : r.vcpus()) {
            StatChange halted = kvm.vcpus().size() > v.vcpu() ? kvm.vcpus().get(v.vcpu()).get("halt_wait_ns") : null;
            err.printf("jkvm: profile: vcpu %d: %d samples over %.2f s on CPU%s%n", v.vcpu(), v.samples(), v.cpuNanos() / 1e9,
                    halted == null ? "" : String.format(", %.2f s halted (KVM halt_wait_ns, not sampled)", halted.value() / 1e9));
            table(err, v.top());
            err.printf("jkvm: profile: vcpu %d by category:%n", v.vcpu());
            table(err, categories.vcpus().get(v.vcpu()));
        }
        err.println("jkvm: profile: all vCPUs:");
        table(err, r.total());
        err.println("jkvm: profile: all vCPUs by category (idle: on-CPU samples in the idle loop; halted time is not sampled):");
        table(err, categories.total());
        err.flush();
    }

    private static void table(PrintWriter err, List<SymbolShare> top) {
        for (SymbolShare s : top) {
            err.printf("jkvm: profile:   %6.2f%%  [%6.2f%%, %6.2f%%]  %8d  %s%n", s.share() * 100, s.low() * 100,
                    s.high() * 100, s.samples(), s.symbol());
        }
    }
}
