package org.jkvm.experiment;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.jkvm.vmm.kvmstats.KvmStatsWindow;
import org.jkvm.vmm.kvmstats.StatChange;

import tools.jackson.databind.JsonNode;

/**
 * KVM's own statistics over one run, per VM, in a compact form: only the statistics that are not
 * zero over the window (a counter's delta, an instant value or peak at the window's end, a
 * histogram's bucket deltas up to the last non-empty one), by KVM's names.
 *
 * @param window {@link #WORKLOAD} when each VM's figures span its workload (from the guest's
 *               ready line to its RESULT line, as the console showed them), {@link #RUN} when they
 *               span the whole run (boot and power-off included) because a VM did not print both
 * @param vms    one entry per VM of the run, in VM order
 */
public record RunKvmStats(String window, List<Vm> vms) {
    /** The window of a run whose guests printed both edges. */
    public static final String WORKLOAD = "workload";
    /** The window of a run whose figures cover it whole. */
    public static final String RUN = "run";

    public RunKvmStats {
        Objects.requireNonNull(window, "window");
        vms = List.copyOf(vms);
    }

    /** The tree a results line holds: {@code window} and {@code vms}, each {@code vm} and {@code vcpus} or {@code unavailable}. */
    Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("window", window);
        m.put("vms", vms.stream().map(Vm::toMap).toList());
        return m;
    }

    /** Reads what {@link #toMap} wrote. */
    static RunKvmStats of(JsonNode n) {
        if (!n.isObject()) throw new IllegalArgumentException("kvm is not an object");
        JsonNode w = n.get("window");
        if (w == null || !w.isString()) throw new IllegalArgumentException("kvm.window is not a string");
        List<Vm> vms = new ArrayList<>();
        for (JsonNode v : array(n.get("vms"), "kvm.vms")) vms.add(Vm.of(v, "kvm.vms[" + vms.size() + "]"));
        return new RunKvmStats(w.stringValue(), vms);
    }

    private static Iterable<JsonNode> array(JsonNode n, String what) {
        if (n == null) return List.of();
        if (!n.isArray()) throw new IllegalArgumentException(what + " is not an array");
        return n.values();
    }

    /**
     * One VM's statistics. A value is a {@link Long} for a counter, instant value or peak, and a
     * {@code List<Long>} of buckets for a histogram.
     *
     * @param unavailable why the host gave none, or null
     * @param vm          the VM's statistics
     * @param vcpus       each vCPU's, in vCPU order
     */
    public record Vm(String unavailable, Map<String, Object> vm, List<Map<String, Object>> vcpus) {
        public Vm {
            vm = Collections.unmodifiableMap(new LinkedHashMap<>(vm));
            vcpus = vcpus.stream().map(m -> Collections.unmodifiableMap(new LinkedHashMap<>(m))).toList();
        }

        /** The compact form of a window. */
        public static Vm of(KvmStatsWindow w) {
            return new Vm(w.unavailable().orElse(null), changed(w.vm()), w.vcpus().stream().map(Vm::changed).toList());
        }

        private static Map<String, Object> changed(Map<String, StatChange> stats) {
            Map<String, Object> m = new LinkedHashMap<>();
            stats.forEach((name, c) -> {
                if (!c.isZero()) m.put(name, c.reported());
            });
            return m;
        }

        private Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            if (unavailable != null) m.put("unavailable", unavailable);
            m.put("vm", vm);
            m.put("vcpus", vcpus);
            return m;
        }

        private static Vm of(JsonNode n, String what) {
            if (!n.isObject()) throw new IllegalArgumentException(what + " is not an object");
            JsonNode u = n.get("unavailable");
            if (u != null && !u.isString()) throw new IllegalArgumentException(what + ".unavailable is not a string");
            List<Map<String, Object>> vcpus = new ArrayList<>();
            for (JsonNode c : array(n.get("vcpus"), what + ".vcpus")) vcpus.add(values(c, what + ".vcpus[" + vcpus.size() + "]"));
            JsonNode v = n.get("vm");
            return new Vm(u == null ? null : u.stringValue(), v == null ? Map.of() : values(v, what + ".vm"), vcpus);
        }

        private static Map<String, Object> values(JsonNode n, String what) {
            if (!n.isObject()) throw new IllegalArgumentException(what + " is not an object");
            Map<String, Object> m = new LinkedHashMap<>();
            for (Map.Entry<String, JsonNode> e : n.properties()) {
                String where = what + "." + e.getKey();
                if (e.getValue().isArray()) {
                    List<Long> buckets = new ArrayList<>();
                    for (JsonNode b : e.getValue().values()) buckets.add(whole(b, where));
                    m.put(e.getKey(), List.copyOf(buckets));
                } else {
                    m.put(e.getKey(), whole(e.getValue(), where));
                }
            }
            return m;
        }

        private static long whole(JsonNode n, String what) {
            if (!n.isIntegralNumber() || !n.canConvertToLong()) throw new IllegalArgumentException(what + " is not a whole number");
            return n.longValue();
        }
    }
}
