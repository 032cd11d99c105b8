package org.jkvm.experiment;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

import tools.jackson.databind.JsonNode;

/**
 * The guests' own counters over one run's workload, per VM: the changes between the
 * {@link GuestCounters} lines the guest printed just before and just after its workload (steal
 * and CPU time, run-queue delay, interrupts by kind, lock events), by {@link GuestCounters}'s
 * dotted names, those that did not change left out.
 *
 * @param vms one entry per VM of the run, in VM order
 */
public record RunGuestStats(List<Vm> vms) {
    /**
     * A kernel log record on the console, {@code [   57.710175] rcu: ...} to its line end. The
     * kernel prints one in a single piece wherever the init's output has got to, so a long line
     * (an overcommitted guest's RCU stall warnings) can be cut by one or more of them.
     */
    private static final Pattern KERNEL_RECORD = Pattern.compile("\\[ *\\d+\\.\\d+\\] [^\\n]*\\n");

    public RunGuestStats {
        vms = List.copyOf(vms);
    }

    /**
     * One VM's changes.
     *
     * @param unavailable why there are none (the guest printed no pair of lines), or null
     * @param changes     the counters' changes over the window
     */
    public record Vm(String unavailable, Map<String, Long> changes) {
        public Vm {
            changes = Collections.unmodifiableMap(new LinkedHashMap<>(changes));
        }

        /** The change of a counter, 0 where it did not change. */
        public long change(String name) {
            return changes.getOrDefault(name, 0L);
        }

        /**
         * From a guest's console, kernel log records taken out (which rejoins a line they cut):
         * the first start line and the first end line after it. Unavailable when either is
         * missing or malformed, or a counter went backwards.
         */
        static Vm fromConsole(String console) {
            GuestCounters start = null;
            for (String line : KERNEL_RECORD.matcher(console).replaceAll("").lines().toList()) {
                Optional<GuestCounters> c = GuestCounters.parse(line);
                if (c.isEmpty()) continue;
                if (start == null && c.get().edge().equals(GuestCounters.START)) {
                    start = c.get();
                } else if (start != null && c.get().edge().equals(GuestCounters.END)) {
                    try {
                        return new Vm(null, c.get().since(start));
                    } catch (IllegalArgumentException e) {
                        return new Vm(e.getMessage(), Map.of());
                    }
                }
            }
            return new Vm("no " + GuestCounters.MARKER + " " + (start == null ? "start" : "end") + " line", Map.of());
        }
    }

    /**
     * The counters of each VM from its console, or null when no guest printed them at all (an
     * initramfs from before the lines existed).
     */
    static RunGuestStats fromConsoles(List<String> consoles) {
        if (consoles.stream().noneMatch(c -> c.contains(GuestCounters.MARKER))) return null;
        return new RunGuestStats(consoles.stream().map(Vm::fromConsole).toList());
    }

    /** The tree a results line holds: {@code vms}, each its changes and, where none, {@code unavailable}. */
    Map<String, Object> toMap() {
        List<Object> list = new ArrayList<>();
        for (Vm v : vms) {
            Map<String, Object> m = new LinkedHashMap<>();
            if (v.unavailable() != null) m.put("unavailable", v.unavailable());
            m.put("changes", v.changes());
            list.add(m);
        }
        return Map.of("vms", list);
    }

    /** Reads what {@link #toMap} wrote. */
    static RunGuestStats of(JsonNode n) {
        if (!n.isObject()) throw new IllegalArgumentException("guest is not an object");
        JsonNode vms = n.get("vms");
        if (vms == null || !vms.isArray()) throw new IllegalArgumentException("guest.vms is not an array");
        List<Vm> out = new ArrayList<>();
        for (JsonNode v : vms.values()) {
            String what = "guest.vms[" + out.size() + "]";
            if (!v.isObject()) throw new IllegalArgumentException(what + " is not an object");
            JsonNode u = v.get("unavailable");
            if (u != null && !u.isString()) throw new IllegalArgumentException(what + ".unavailable is not a string");
            JsonNode c = v.get("changes");
            if (c == null || !c.isObject()) throw new IllegalArgumentException(what + ".changes is not an object");
            Map<String, Long> changes = new LinkedHashMap<>();
            for (Map.Entry<String, JsonNode> e : c.properties()) {
                JsonNode x = e.getValue();
                if (!x.isIntegralNumber() || !x.canConvertToLong()) {
                    throw new IllegalArgumentException(what + ".changes." + e.getKey() + " is not a whole number");
                }
                changes.put(e.getKey(), x.longValue());
            }
            out.add(new Vm(u == null ? null : u.stringValue(), changes));
        }
        return new RunGuestStats(out);
    }
}
