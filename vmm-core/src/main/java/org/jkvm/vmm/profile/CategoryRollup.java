package org.jkvm.vmm.profile;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A profile's samples rolled up into {@link Category categories} by {@link CategoryRules}, per
 * vCPU and over all vCPUs: each category's share of the on-CPU samples with its 95% Wilson
 * interval (a {@link SymbolShare} whose symbol is the category's label), every category listed,
 * in {@link Category} order.
 *
 * @param vcpus each vCPU's categories, in vCPU order
 * @param total the categories over all vCPUs
 */
public record CategoryRollup(List<List<SymbolShare>> vcpus, List<SymbolShare> total) {
    /** The CSV's header: {@code vcpu} is a vCPU id or {@code all}. */
    public static final String CSV_HEADER = "vcpu,category,samples,share,low,high";

    public CategoryRollup {
        vcpus = vcpus.stream().map(List::copyOf).toList();
        total = List.copyOf(total);
    }

    /** Rolls up a report's folded stacks (each {@code vcpuN;outer;...;leaf count}). */
    public static CategoryRollup of(ProfileReport report) {
        List<Map<Category, Long>> per = new ArrayList<>();
        for (int v = 0; v < report.vcpus().size(); v++) per.add(new EnumMap<>(Category.class));
        Map<Category, Long> all = new EnumMap<>(Category.class);
        for (String line : report.folded()) {
            FoldedLine f = FoldedLine.parse(line);
            int vcpu = Integer.parseInt(f.frames().getFirst().substring("vcpu".length()));
            Category c = CategoryRules.classify(f.frames().subList(1, f.frames().size()));
            per.get(vcpu).merge(c, f.count(), Long::sum);
            all.merge(c, f.count(), Long::sum);
        }
        return new CategoryRollup(per.stream().map(CategoryRollup::shares).toList(), shares(all));
    }

    private static List<SymbolShare> shares(Map<Category, Long> counts) {
        long n = counts.values().stream().mapToLong(Long::longValue).sum();
        List<SymbolShare> out = new ArrayList<>();
        for (Category c : Category.values()) {
            long k = counts.getOrDefault(c, 0L);
            out.add(n == 0 ? new SymbolShare(c.label(), 0, 0, 0, 0) : SymbolShare.of(c.label(), k, n));
        }
        return out;
    }

    /** The roll-up as CSV: {@link #CSV_HEADER}, then a row per vCPU and category, then the {@code all} rows. */
    public String csv() {
        StringBuilder b = new StringBuilder(CSV_HEADER).append('\n');
        for (int v = 0; v < vcpus.size(); v++) rows(b, Integer.toString(v), vcpus.get(v));
        rows(b, "all", total);
        return b.toString();
    }

    private static void rows(StringBuilder b, String vcpu, List<SymbolShare> shares) {
        for (SymbolShare s : shares) {
            b.append(String.format(Locale.ROOT, "%s,%s,%d,%.6f,%.6f,%.6f%n", vcpu, s.symbol(), s.samples(), s.share(),
                    s.low(), s.high()));
        }
    }
}
