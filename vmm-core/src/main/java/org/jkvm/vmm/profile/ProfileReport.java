package org.jkvm.vmm.profile;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.LongSummaryStatistics;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * A {@link GuestProfile} symbolised: per vCPU and in total, the symbols with the most on-CPU
 * samples and their shares; and the samples as folded stacks ({@code vcpuN;outer;...;leaf count}
 * lines, the format flame-graph tools read): kernel samples with the callers their frame records
 * name (a return address is named by the call before it), others the sampled frame only.
 *
 * @param symbolisation how PCs became names (the table, the KASLR offset and where it came from)
 * @param vcpus         each vCPU's profile, in vCPU order
 * @param total         the top symbols over all vCPUs
 * @param samples       all samples (weighted)
 * @param cost          what taking one sample cost the vCPU thread (clock and register reads), in ns
 * @param folded        the folded stacks, one line each
 */
public record ProfileReport(String symbolisation, List<VcpuProfile> vcpus, List<SymbolShare> total, long samples,
                            LongSummaryStatistics cost, long medianCost, List<String> folded) {
    /** Top symbols kept per vCPU and in total unless a caller asks for another number. */
    public static final int DEFAULT_TOP = 10;
    /** Frames of EL0 samples: the guest's user space, not symbolised. */
    public static final String USER = "[user]";
    /** Frames of periods the vCPU thread spent in jkvm (exit handling), outside the guest. */
    public static final String VMM = "[jkvm]";
    /** The symbol the kernel's exception vectors start at: VBAR_EL1 minus its address is the KASLR offset. */
    static final String VECTORS = "vectors";
    /** An arm64 BL is one 4-byte instruction: the call is just before its return address. */
    private static final long CALL_SIZE = 4;

    public ProfileReport {
        vcpus = List.copyOf(vcpus);
        total = List.copyOf(total);
        folded = List.copyOf(folded);
    }

    /**
     * One vCPU's part.
     *
     * @param vcpu     its id
     * @param samples  its samples (weighted)
     * @param cpuNanos its thread's CPU time while profiled
     * @param top      its top symbols
     */
    public record VcpuProfile(int vcpu, long samples, long cpuNanos, List<SymbolShare> top) {
        public VcpuProfile {
            top = List.copyOf(top);
        }
    }

    /** Symbolises {@code profile} with {@code symbols} (none: PCs stay hex), keeping the {@code topN} symbols. */
    public static ProfileReport of(GuestProfile profile, Optional<SymbolTable> symbols, int topN) {
        long offset = 0;
        String how;
        if (symbols.isEmpty()) {
            how = "no symbol table: kernel PCs shown as addresses";
        } else {
            OptionalLong vectors = symbols.get().address(VECTORS);
            OptionalLong vbar = profile.vbar();
            if (vectors.isPresent() && vbar.isPresent()) {
                offset = vbar.getAsLong() - vectors.getAsLong();
                how = symbols.get().size() + " symbols, KASLR offset 0x" + Long.toHexString(offset)
                        + " (VBAR_EL1 0x" + Long.toHexString(vbar.getAsLong()) + " - '" + VECTORS + "')";
            } else {
                how = symbols.get().size() + " symbols, taken as linked (no '" + VECTORS + "' symbol or no VBAR_EL1"
                        + " to place a KASLR kernel by)";
            }
        }
        Map<String, Long> all = new HashMap<>();
        Map<String, Long> folded = new TreeMap<>();
        List<VcpuProfile> perVcpu = new ArrayList<>();
        List<Long> costs = new ArrayList<>();
        for (int v = 0; v < profile.vcpus().size(); v++) {
            VcpuSamples s = profile.vcpus().get(v);
            Map<String, Long> counts = new HashMap<>();
            for (int i = 0; i < s.count(); i++) {
                String frame = frame(s.pc(i), s.el(i), symbols, offset);
                counts.merge(frame, (long) s.weight(i), Long::sum);
                all.merge(frame, (long) s.weight(i), Long::sum);
                folded.merge("vcpu" + v + callers(s, i, symbols, offset) + ";" + frame, (long) s.weight(i), Long::sum);
            }
            perVcpu.add(new VcpuProfile(v, s.totalWeight(), s.cpuNanos(), top(counts, s.totalWeight(), topN)));
            for (int i = 0; i < s.count(); i++) {
                if (s.el(i) != VcpuSamples.VMM) costs.add(s.took(i));
            }
        }
        long n = all.values().stream().mapToLong(Long::longValue).sum();
        costs.sort(null);
        return new ProfileReport(how, perVcpu, top(all, n, topN), n,
                costs.stream().mapToLong(Long::longValue).summaryStatistics(),
                costs.isEmpty() ? 0 : costs.get(costs.size() / 2),
                folded.entrySet().stream().map(e -> e.getKey() + " " + e.getValue()).toList());
    }

    /** {@code ;outermost;...;innermost} caller of sample {@code i}, or nothing. */
    private static String callers(VcpuSamples s, int i, Optional<SymbolTable> symbols, long offset) {
        StringBuilder b = new StringBuilder();
        for (int k = s.depth(i) - 1; k >= 0; k--) {
            long call = s.caller(i, k) - CALL_SIZE;
            b.append(';').append(symbols.flatMap(t -> t.at(call - offset)).orElse("0x" + Long.toHexString(call)));
        }
        return b.toString();
    }

    private static String frame(long pc, int el, Optional<SymbolTable> symbols, long offset) {
        if (el == VcpuSamples.VMM) return VMM;
        if (el == 0) return USER;
        return symbols.flatMap(t -> t.at(pc - offset)).orElse("0x" + Long.toHexString(pc));
    }

    private static List<SymbolShare> top(Map<String, Long> counts, long n, int topN) {
        if (n == 0) return List.of();
        return counts.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                .limit(topN).map(e -> SymbolShare.of(e.getKey(), e.getValue(), n)).toList();
    }
}
