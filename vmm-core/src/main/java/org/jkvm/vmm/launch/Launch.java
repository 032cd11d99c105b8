package org.jkvm.vmm.launch;

import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

import org.jkvm.kvm.Kvm;
import org.jkvm.vmm.StartupMarks;
import org.jkvm.vmm.StopMarks;
import org.jkvm.vmm.VmOutcome;
import org.jkvm.vmm.arch.aarch64.Arm64Vm;
import org.jkvm.vmm.config.VmConfig;
import org.jkvm.vmm.jfr.ExitCountEvents;
import org.jkvm.vmm.kvmstats.KvmStatistics;
import org.jkvm.vmm.kvmstats.KvmStatsSnapshot;

/**
 * The one way jkvm's front ends boot a guest: a {@link VmConfig} and the extensions to attach
 * become a built VM ({@link #prepare}), which {@link #run} runs to its end and reports. Closing
 * releases the extensions, then the VM. Under a JFR recording started before it is prepared, its
 * vCPUs' exits are recorded as {@code org.jkvm.VcpuExits} events ({@link ExitCountEvents}).
 */
public final class Launch implements AutoCloseable {
    private final Arm64Vm vm;
    private final List<VmExtension> extensions;
    private final KvmStatistics kvmStats;
    private final ExitCountEvents exitEvents;

    private Launch(Arm64Vm vm, List<VmExtension> extensions) {
        this.vm = vm;
        this.extensions = extensions;
        this.kvmStats = KvmStatistics.open(vm.vm(), vm.vcpus());
        try {
            this.exitEvents = ExitCountEvents.watch(vm::vcpuStats);
        } catch (RuntimeException e) {
            kvmStats.close();
            throw e;
        }
    }

    /**
     * Builds the VM for {@code config} with its console on {@code console} and attaches
     * {@code attach} in order; nothing runs yet. Bad input is an {@link IllegalArgumentException}
     * naming the fix; whatever was built before a failure is released.
     */
    public static Launch prepare(Kvm kvm, VmConfig config, OutputStream console, List<VmExtension.Attach> attach)
            throws IOException {
        StartupMarks.mark("KVM opened");
        Arm64Vm vm = Arm64Vm.create(kvm, config, console);
        List<VmExtension> attached = new ArrayList<>();
        try {
            for (VmExtension.Attach a : attach) attached.add(a.attach(vm));
            StartupMarks.mark("extensions attached");
            return new Launch(vm, attached);
        } catch (RuntimeException e) {
            closeAll(attached, vm);
            throw e;
        }
    }

    /** The built VM, e.g. to show its layout before it runs. */
    public Arm64Vm vm() {
        return vm;
    }

    /** The attached extension of type {@code type}. */
    public <T extends VmExtension> T extension(Class<T> type) {
        return extensions.stream().filter(type::isInstance).map(type::cast).findFirst()
                .orElseThrow(() -> new IllegalStateException("no " + type.getSimpleName() + " attached"));
    }

    /**
     * KVM's statistics of this VM: {@link KvmStatistics#snapshot} at the edges of a window of the
     * run (e.g. a workload's) gives what KVM counted in it. {@link #run} reports the whole run.
     */
    public KvmStatistics kvmStatistics() {
        return kvmStats;
    }

    /** Runs the guest until it ends (or the config's timeout), then reports it. */
    public RunReport run() throws InterruptedException {
        KvmStatsSnapshot before = kvmStats.snapshot();
        long t0 = System.nanoTime();
        VmOutcome outcome = vm.run();
        Duration ran = Duration.ofNanos(System.nanoTime() - t0);
        KvmStatsSnapshot after = kvmStats.snapshot();
        exitEvents.emit();
        for (VmExtension x : extensions) x.vmStopped();
        StopMarks.mark("KVM statistics read");
        return new RunReport(outcome, vm.setupTime(), ran, vm.vcpuStats(), vm.strayMmio(), vm.unknownHypercalls(),
                vm.stealTimeRegion() == null ? OptionalLong.empty() : OptionalLong.of(vm.stealTimeRegion().gpa()),
                vm.guestCpu().names(), System.getProperty("os.version"), vm.guestKernelRelease(), kvmStats.window(before, after));
    }

    /** Stops a running guest from another thread (e.g. on a signal). */
    public void stop(String reason) {
        vm.stop(reason);
    }

    @Override
    public void close() {
        exitEvents.close();
        kvmStats.close();
        StopMarks.mark("KVM statistics closed");
        closeAll(extensions, vm);
    }

    private static void closeAll(List<VmExtension> extensions, Arm64Vm vm) {
        try {
            for (VmExtension x : extensions.reversed()) x.close();
        } finally {
            vm.close();
        }
    }
}
