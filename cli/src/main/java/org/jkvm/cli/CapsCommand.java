package org.jkvm.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

import org.jkvm.experiment.Json;
import org.jkvm.kvm.Kvm;
import org.jkvm.pvlock.PvLockMode;
import org.jkvm.pvlock.PvLockSupport;
import org.jkvm.pvlock.SwitchRecordSupport;
import org.jkvm.vmm.host.HostCapabilities;
import org.jkvm.vmm.host.HostProbe;

import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code jkvm caps}: what this host's KVM offers that jkvm cares about. Its picocli model is built
 * in {@link #spec} rather than from annotations ({@link OptionBinding} says why).
 */
final class CapsCommand implements Callable<Integer> {
    private CommandSpec spec;
    private boolean json;
    private Path device = Kvm.DEFAULT_PATH;

    private CapsCommand() {}

    /** The model of {@code jkvm caps}, its options bound to a new CapsCommand. */
    static CommandSpec spec() {
        CapsCommand c = new CapsCommand();
        c.spec = HelpOptions.command(c, "Shows what this host's KVM offers that jkvm uses: API version, vCPU and"
                + " memslot limits, steal time, irqfd/ioeventfd, whether jkvm may read the kernel's context-switch"
                + " records (per thread for PV-lock tracking, CPU-wide for --preemptors), and on arm64 the IPA size,"
                + " the SMCCC filter and whether vCPUs accept the PV-time and PV-lock attributes.");
        c.spec.addOption(OptionBinding.flag("--json", () -> c.json, v -> c.json = v)
                .description("Print JSON instead of a table.").build());
        c.spec.addOption(OptionBinding.option("--device", "PATH", Path.class, () -> c.device, v -> c.device = v)
                .description("The KVM device node (default: ${DEFAULT-VALUE}).").build());
        return c.spec;
    }

    @Override
    public Integer call() {
        HostCapabilities caps;
        try (Kvm kvm = Kvm.open(device)) {
            caps = HostProbe.probe(kvm);
        }
        SwitchRecordSupport records = SwitchRecordSupport.probe();
        PrintWriter out = spec.commandLine().getOut();
        if (json) out.println(Json.pretty(toMap(caps, records)));
        else printTable(out, caps, records);
        out.flush();
        return ExitCode.OK;
    }

    private Map<String, Object> toMap(HostCapabilities c, SwitchRecordSupport records) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("device", device.toString());
        m.put("arch", c.arch().name().toLowerCase(java.util.Locale.ROOT));
        m.put("kernel", c.kernelRelease());
        m.put("kvm", c.flavour());
        m.put("api_version", c.apiVersion());
        m.put("max_vcpus", c.maxVcpus());
        m.put("recommended_vcpus", c.recommendedVcpus());
        m.put("max_vcpu_id", c.maxVcpuId());
        m.put("memslots", c.memslots());
        m.put("irqfd", c.irqfd());
        m.put("ioeventfd", c.ioeventfd());
        m.put("immediate_exit", c.immediateExit());
        m.put("steal_time", c.stealTime());
        Map<String, Object> switches = new LinkedHashMap<>();
        switches.put("per_thread", records.perThread().available());
        switches.put("per_thread_refusal", records.perThread().refusal());
        switches.put("cpu_wide", records.cpuWide().available());
        switches.put("cpu_wide_refusal", records.cpuWide().refusal());
        m.put("switch_records", switches);
        if (c.arm64() != null) {
            HostCapabilities.Arm64 a = c.arm64();
            Map<String, Object> arm = new LinkedHashMap<>();
            arm.put("ipa_limit_bits", a.ipaLimitBits());
            arm.put("psci_0_2", a.psci02());
            arm.put("pmu_v3", a.pmuV3());
            arm.put("sve", a.sve());
            arm.put("ptrauth", a.ptrAuth());
            arm.put("smccc_filter", a.smcccFilter());
            arm.put("pvtime_attr", a.pvTimeAttr());
            arm.put("pvlock_attr", a.pvLockAttr());
            PvLockSupport.Resolution auto = pvLockAuto(a);
            arm.put("pvlock_auto", auto.mode().cliName());
            arm.put("pvlock_auto_reason", auto.reason());
            m.put("arm64", arm);
        }
        return m;
    }

    private void printTable(PrintWriter out, HostCapabilities c, SwitchRecordSupport records) {
        out.printf("%s on %s, Linux %s%n", device, c.arch().name().toLowerCase(java.util.Locale.ROOT), c.kernelRelease());
        row(out, "KVM", c.flavour() + ", API " + c.apiVersion());
        row(out, "vCPUs per VM", "max " + c.maxVcpus() + " (recommended " + c.recommendedVcpus()
                + "), max vCPU id " + c.maxVcpuId());
        row(out, "memory slots", Integer.toString(c.memslots()));
        row(out, "irqfd", yesNo(c.irqfd()));
        row(out, "ioeventfd", yesNo(c.ioeventfd()));
        row(out, "immediate exit", yesNo(c.immediateExit()));
        row(out, "steal time", yesNo(c.stealTime()));
        row(out, "switch records", availability(records.perThread(), "userspace PV-lock tracking"));
        row(out, "CPU-wide records", availability(records.cpuWide(), "--preemptors"));
        HostCapabilities.Arm64 a = c.arm64();
        if (a != null) {
            row(out, "IPA size", "up to " + a.ipaLimitBits() + " bits");
            row(out, "PSCI 0.2", yesNo(a.psci02()));
            row(out, "PMUv3", yesNo(a.pmuV3()));
            row(out, "SVE", yesNo(a.sve()));
            row(out, "pointer auth", yesNo(a.ptrAuth()));
            row(out, "SMCCC filter", yesNo(a.smcccFilter()) + (a.smcccFilter()
                    ? " (PV-lock calls can be answered by jkvm)" : " (needs Linux 6.4 or later)"));
            row(out, "PV time attr", yesNo(a.pvTimeAttr()));
            row(out, "PV lock attr", yesNo(a.pvLockAttr()) + (a.pvLockAttr()
                    ? " (host kernel has the PV-lock series)" : " (host kernel lacks the PV-lock series)"));
            PvLockSupport.Resolution auto = pvLockAuto(a);
            row(out, "--pvlock auto", auto.mode().cliName() + ": " + auto.reason());
        }
    }

    /** What AUTO picks for a VM that leaves the preemption tracker a CPU; the reason says what it picks otherwise. */
    private static PvLockSupport.Resolution pvLockAuto(HostCapabilities.Arm64 a) {
        PvLockSupport.Resolution r = new PvLockSupport(a.pvLockAttr(), a.smcccFilter()).resolve(PvLockMode.AUTO, true);
        return r.mode() != PvLockMode.USERSPACE ? r : new PvLockSupport.Resolution(r.mode(), r.reason()
                + "; off for a VM whose vCPUs could keep every CPU busy (the preemption tracker would have none)");
    }

    private static void row(PrintWriter out, String name, String value) {
        out.printf("  %-16s %s%n", name, value);
    }

    private static String availability(SwitchRecordSupport.Availability a, String whatFor) {
        return a.available() ? "yes (" + whatFor + ")" : "no, so no " + whatFor + ": " + a.refusal();
    }

    private static String yesNo(boolean b) {
        return b ? "yes" : "no";
    }
}
