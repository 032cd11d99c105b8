package org.jkvm.experiment;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * One {@code JKVM-GUEST-STATS start|end {json}} line of the workloads initramfs (its
 * {@code guest_stats}, guest/workloads/init): the guest's own cumulative counters at an edge of
 * its workload, flattened to whole numbers by dotted name:
 * {@code uptime_cs}; {@code cpu.<field>} and {@code cpu<N>.<field>} from /proc/stat (USER_HZ
 * ticks; fields as {@link #CPU_FIELDS}); {@code run_delay_ns} (/proc/schedstat, summed over the
 * CPUs); {@code irq.<kind>} (/proc/interrupts summed over the CPUs); {@code lock.<event>}
 * (debugfs lock_event_counts).
 *
 * @param edge     {@link #START} or {@link #END}
 * @param counters the counters by dotted name
 */
record GuestCounters(String edge, Map<String, Long> counters) {
    /** The marker the init prints. */
    static final String MARKER = "JKVM-GUEST-STATS";
    static final String START = "start";
    static final String END = "end";
    /** The columns of a /proc/stat cpu line, in order. */
    static final List<String> CPU_FIELDS = List.of("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal",
            "guest", "guest_nice");

    private static final Pattern LINE = Pattern.compile("(?:^|\\s)" + MARKER + " (start|end) (\\{.*\\})\\s*$");

    GuestCounters {
        counters = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(counters));
    }

    /**
     * The counters on a console line, if it holds a well-formed one. Kernel messages may precede
     * the marker on its line; a line they cut through is no edge.
     */
    static Optional<GuestCounters> parse(String consoleLine) {
        Matcher m = LINE.matcher(consoleLine);
        if (!m.find()) return Optional.empty();
        try {
            JsonNode o = Json.read(m.group(2));
            if (!o.isObject()) return Optional.empty();
            Map<String, Long> c = new LinkedHashMap<>();
            for (Map.Entry<String, JsonNode> e : o.properties()) {
                JsonNode v = e.getValue();
                switch (e.getKey()) {
                    case "cpu" -> ticks(c, "cpu", v);
                    case "cpus" -> {
                        if (!v.isArray()) return Optional.empty();
                        for (int i = 0; i < v.size(); i++) ticks(c, "cpu" + i, v.get(i));
                    }
                    case "irqs" -> named(c, "irq.", v);
                    case "lock_events" -> named(c, "lock.", v);
                    default -> c.put(e.getKey(), whole(v));
                }
            }
            return Optional.of(new GuestCounters(m.group(1), c));
        } catch (JacksonException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /**
     * The counters' changes from {@code start} to {@code end} (this one): every counter of the
     * end line, less its start value (0 where the start had none); changes of 0 are left out.
     *
     * @throws IllegalArgumentException when a counter went backwards (a reset in the window)
     */
    Map<String, Long> since(GuestCounters start) {
        Map<String, Long> d = new LinkedHashMap<>();
        counters.forEach((name, v) -> {
            long delta = v - start.counters.getOrDefault(name, 0L);
            if (delta < 0) throw new IllegalArgumentException(name + " went backwards (" + start.counters.get(name) + " -> " + v + ")");
            if (delta != 0) d.put(name, delta);
        });
        return d;
    }

    private static void ticks(Map<String, Long> c, String prefix, JsonNode a) {
        if (!a.isArray() || a.size() != CPU_FIELDS.size()) throw new IllegalArgumentException(prefix + " is not " + CPU_FIELDS.size() + " numbers");
        for (int i = 0; i < a.size(); i++) c.put(prefix + "." + CPU_FIELDS.get(i), whole(a.get(i)));
    }

    private static void named(Map<String, Long> c, String prefix, JsonNode o) {
        if (!o.isObject()) throw new IllegalArgumentException(prefix + " is not an object");
        for (Map.Entry<String, JsonNode> e : o.properties()) c.put(prefix + e.getKey(), whole(e.getValue()));
    }

    private static long whole(JsonNode n) {
        if (!n.isIntegralNumber() || !n.canConvertToLong()) throw new IllegalArgumentException(n + " is not a whole number");
        return n.longValue();
    }
}
