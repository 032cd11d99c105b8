package org.jkvm.experiment;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiConsumer;

import org.jkvm.experiment.ExperimentSpec.Variant;
import org.jkvm.experiment.ExperimentSpec.Workload;
import org.jkvm.vmm.arch.aarch64.BootLayout;
import org.jkvm.vmm.arch.aarch64.image.BadKernelImageException;
import org.jkvm.vmm.config.CpuSet;
import org.jkvm.vmm.config.Disk;
import org.jkvm.vmm.config.SettingException;

/**
 * What a run would refuse in a spec that reads well, found with the run's own code rather than
 * a copy of its limits: each problem goes to {@code problems} as the field path it comes from
 * (e.g. {@code variants[3].vcpus}) and a message.
 */
final class SpecRunChecks {
    private SpecRunChecks() {}

    /** Puts every run's VM through its own validation ({@link ExperimentSpec#checkVm}). */
    static void vms(ExperimentSpec spec, BiConsumer<String, String> problems) {
        for (int i = 0; i < spec.variants().size(); i++) {
            Variant v = spec.variants().get(i);
            String variant = "variants[" + i + "].";
            for (int j = 0; j < spec.workloads().size(); j++) {
                Workload w = spec.workloads().get(j);
                try {
                    spec.checkVm(v, w);
                } catch (SettingException e) {
                    String field = switch (e.setting()) {
                        case "cpus" -> v.vcpus() > 0 ? variant + "vcpus" : "vcpus";
                        case "pin" -> v.pin() != null ? variant + "pin" : "pin";
                        case "cmdline" -> w.isCommand() ? "workloads[" + j + "].command"
                                : v.cmdline() != null ? variant + "cmdline" : "guest.cmdline";
                        default -> e.setting();
                    };
                    boolean length = e.setting().equals("cmdline") && e.value() != null;
                    problems.accept(field, (length ? "the command line with jkvm's and workload " + w.label()
                            + "'s arguments is " : "") + shown(e));
                }
            }
        }
    }

    /**
     * Refuses a variant's {@code vmm_pin} (its own or the spec's) that shares a CPU with its vCPUs, as
     * {@code jkvm run} refuses a {@code --vmm-pin} sharing one with {@code --pin}.
     */
    static void vmmPin(ExperimentSpec spec, BiConsumer<String, String> problems) {
        for (int i = 0; i < spec.variants().size(); i++) {
            Variant v = spec.variants().get(i);
            BitSet vmmPin = spec.vmmPinSet(v);
            if (vmmPin == null) continue;
            String field = spec.vmmPinField(i);
            try {
                CpuSet.checkApart(field, vmmPin, v.pin() != null ? "variants[" + i + "].pin" : "pin", spec.pinSet(v));
            } catch (SettingException e) {
                // a variant that uses every CPU (a reference) can leave the spec's vmm_pin
                problems.accept(field, shown(e) + (v.vmmPin() == null ? ", or give variants[" + i + "] \"vmm_pin\": \""
                        + ExperimentSpec.VMM_PIN_NONE + "\"" : ""));
            }
        }
    }

    /**
     * Reads each kernel and places it with the initrd in the guest's RAM, as a boot does
     * ({@link BootLayout}); checks the root file system as the VM's {@link Disk} does.
     */
    static void boots(ExperimentSpec spec, BiConsumer<String, String> problems) {
        if (spec.guest().rootfs() != null) {
            try {
                new Disk(spec.guest().rootfs(), true, "");
            } catch (SettingException e) {
                problems.accept("guest.rootfs", shown(e));
            }
        }
        Map<Path, String> kernels = new LinkedHashMap<>();
        kernels.put(spec.guest().kernel(), "guest.kernel");
        for (int i = 0; i < spec.variants().size(); i++) {
            Path k = spec.variants().get(i).kernel();
            if (k != null) kernels.putIfAbsent(k, "variants[" + i + "].kernel");
        }
        kernels.forEach((kernel, field) -> {
            try {
                long initrd = spec.guest().initrd() == null ? 0 : Files.size(spec.guest().initrd());
                BootLayout.place(BootLayout.readKernel(kernel, spec.memory()), initrd, spec.memory());
            } catch (SettingException e) {
                problems.accept(e.setting(), shown(e));
            } catch (BadKernelImageException e) {
                problems.accept(field, e.getMessage());
            } catch (IOException e) {
                problems.accept(field, "cannot read " + kernel + " or " + spec.guest().initrd() + ": " + e);
            }
        });
    }

    private static String shown(SettingException e) {
        return e.value() == null ? e.problem() : e.value() + ": " + e.problem();
    }
}
