package org.jkvm.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.jkvm.vmm.kvmstats.KvmStatsWindow;
import org.jkvm.vmm.launch.Launch;
import org.jkvm.vmm.launch.VmExtension;
import org.jkvm.vmm.profile.CategoryRollup;
import org.jkvm.vmm.profile.GuestProfile;
import org.jkvm.vmm.profile.GuestProfiler;
import org.jkvm.vmm.profile.ProfileFiles;
import org.jkvm.vmm.profile.ProfileReport;
import org.jkvm.vmm.profile.SymbolTable;

import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code jkvm run}'s guest-profiler options (options added to its picocli model): whether to sample, against which
 * symbols, and where its files go; and what the run prints and writes for them.
 */
final class ProfileOptions {
    private Integer hz;
    private Path symbols;
    private Path out;

    /** Adds its options to {@code spec}, bound to this. */
    void addTo(CommandSpec spec) {
        spec.addOption(OptionBinding.option("--profile", "HZ", Integer.class, () -> hz, v -> hz = v)
                .arity("0..1").fallbackValue("99").converters(new Converters.WholeNumber())
                .description("Sample where each vCPU is, HZ times per second of its thread's CPU time (default 99 when"
                        + " given without HZ; off unless given), and report the top guest symbols.").build());
        spec.addOption(OptionBinding.option("--symbols", "FILE", Path.class, () -> symbols, v -> symbols = v)
                .description("The guest's symbols for --profile: a kernel's System.map, a /proc/kallsyms dump or nm output.")
                .build());
        spec.addOption(OptionBinding.option("--profile-out", "DIR", Path.class, () -> out, v -> out = v)
                .description("Write --profile's results into DIR (made if missing): " + ProfileFiles.FOLDED + " (folded stacks,"
                        + " vcpuN;caller;...;symbol count, for flame-graph tools), " + ProfileFiles.CATEGORIES
                        + " (the categories per vCPU and in total) and " + ProfileFiles.FLAME_GRAPH + "; over the workload's"
                        + " window where the guest marks one, with the whole run's in DIR/" + ProfileFiles.WHOLE_RUN + ".")
                .build());
    }

    /** Whether --profile was given. */
    boolean enabled() {
        return hz != null;
    }

    /** --symbols and --profile-out without --profile, and an unreadable --symbols, are refused before boot. */
    Optional<SymbolTable> check() {
        if (!enabled() && (symbols != null || out != null)) {
            throw new UserError((symbols != null ? "--symbols" : "--profile-out") + " needs --profile");
        }
        if (symbols == null) return Optional.empty();
        try {
            return Optional.of(SymbolTable.read(symbols));
        } catch (NoSuchFileException e) {
            throw new UserError("--symbols " + symbols + ": no such file");
        } catch (IOException | IllegalArgumentException e) {
            throw new UserError("--symbols " + symbols + ": " + e.getMessage());
        }
    }

    /** Adds --profile-out and the files it gets, if given, to what the run writes. */
    void addOutputs(Map<Path, String> outputs) {
        if (out == null) return;
        outputs.put(out, "--profile-out");
        outputs.put(out.resolve(ProfileFiles.WHOLE_RUN), "--profile-out");
        for (String name : files()) outputs.put(out.resolve(name), "--profile-out");
    }

    /** Adds --symbols, if given, to what the run reads. */
    void addInputs(Map<Path, String> inputs) {
        if (symbols != null) inputs.put(symbols, "the --symbols file");
    }

    /** --profile-out's files claimed before boot, or null. */
    ClaimedFolder claimOut() {
        return out == null ? null : ClaimedFolder.claim("--profile-out", out, files());
    }

    /** The profiler to attach, if --profile was given. */
    List<VmExtension.Attach> attach() {
        return enabled() ? List.of(GuestProfiler.attaching(hz)) : List.of();
    }

    /**
     * After the run: the report on stderr and its files in --profile-out, over the workload's
     * {@code window} where the guest marked one (with the whole run's files in
     * {@value ProfileFiles#WHOLE_RUN}/), else over the whole run; {@code runKvm} is KVM's
     * statistics over the whole run.
     */
    void report(Launch launch, Optional<SymbolTable> table, KvmStatsWindow runKvm, Optional<WorkloadWindow.Figures> window,
                PrintWriter err, ClaimedFolder files) throws IOException {
        if (enabled()) report(launch.extension(GuestProfiler.class).profile(), table, runKvm, window, err, files);
    }

    void report(GuestProfile whole, Optional<SymbolTable> table, KvmStatsWindow runKvm, Optional<WorkloadWindow.Figures> window,
                PrintWriter err, ClaimedFolder files) throws IOException {
        String title = "jkvm run --profile=" + hz;
        ProfileReport all = ProfileReport.of(whole, table, ProfileReport.DEFAULT_TOP);
        if (window.isEmpty()) {
            CategoryRollup categories = CategoryRollup.of(all);
            ProfileText.print(err, all, categories, runKvm);
            if (files != null) files.write(ProfileFiles.of(all, categories, title));
            return;
        }
        WorkloadWindow.Figures w = window.get();
        ProfileReport inWindow = ProfileReport.of(whole.between(w.from(), w.to()), table, ProfileReport.DEFAULT_TOP);
        CategoryRollup categories = CategoryRollup.of(inWindow);
        err.printf("jkvm: profile: over the workload's window (%.3f s): %d of the run's %d samples%s%n", w.nanos() / 1e9,
                inWindow.samples(), all.samples(), files == null ? ""
                        : "; the whole run's in " + out.resolve(ProfileFiles.WHOLE_RUN));
        ProfileText.print(err, inWindow, categories, w.kvm());
        if (files == null) return;
        files.write(ProfileFiles.of(inWindow, categories, title + ", workload window"));
        Map<String, String> wholeFiles = new LinkedHashMap<>();
        ProfileFiles.of(all, CategoryRollup.of(all), title + ", whole run")
                .forEach((name, text) -> wholeFiles.put(wholeRun(name), text));
        files.write(wholeFiles);
    }

    /** The files --profile-out claims: a profile's, and the whole run's beside them for a guest that marks its window. */
    private static List<String> files() {
        List<String> files = new ArrayList<>(ProfileFiles.NAMES);
        for (String name : ProfileFiles.NAMES) files.add(wholeRun(name));
        return files;
    }

    private static String wholeRun(String name) {
        return ProfileFiles.WHOLE_RUN + "/" + name;
    }
}
