package org.jkvm.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;

import org.jkvm.pvlock.PvLockDevice;
import org.jkvm.vmm.arch.aarch64.Arm64Vm;
import org.jkvm.vmm.config.Disk;
import org.jkvm.vmm.config.Sizes;
import org.jkvm.vmm.config.VmConfig;
import org.jkvm.vmm.virtio.VirtioConsole;

/**
 * The lines {@code jkvm run} prints on stderr once the VM is built, before its vCPUs start: what
 * was set up and how long it took, the PV-lock mode, the disks, the network and the console.
 *
 * <p>Written by concatenation, not {@code printf}: a JVM's first {@link java.util.Formatter} loads
 * the locale data it formats numbers with (~200 classes), which took 140-210 ms in the emulated arm64 host
 * (bench/boot/README.md), all of it between the VM's set-up and the guest's first instruction.
 */
final class SetUpLines {
    private SetUpLines() {}

    /** Prints them to {@code err} and flushes it; {@code resultsPort} is --results-port's file, or null. */
    static void print(PrintWriter err, VmConfig config, Arm64Vm vm, PvLockDevice pvLock, Path resultsPort) {
        int cpus = config.cpus();
        List<String> features = vm.guestCpu().names();
        err.println("jkvm: " + cpus + " vCPU" + (cpus == 1 ? "" : "s") + ", " + Sizes.format(config.memory())
                + " RAM, set up in " + vm.setupTime().toMillis() + " ms"
                + (vm.stealTimeRegion() == null ? "" : ", steal time at 0x" + Long.toHexString(vm.stealTimeRegion().gpa()))
                + (features.isEmpty() ? "" : ", CPU features " + String.join(" ", features)));
        err.println("jkvm: " + pvLock.describe());
        for (int i = 0; i < config.disks().size(); i++) {
            Disk d = config.disks().get(i);
            err.println("jkvm: /dev/vd" + (char) ('a' + i) + ": " + d.path() + (d.readOnly() ? " (read-only)" : ""));
        }
        if (config.net() != null) err.println("jkvm: virtio-net on tap " + config.net().tap() + ", MAC " + config.net().mac());
        if (config.console()) {
            err.println("jkvm: virtio-console: hvc0, port " + VirtioConsole.RESULTS_PORT + (resultsPort == null ? "" : " to " + resultsPort));
        }
        err.flush();
    }
}
