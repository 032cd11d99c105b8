package org.jkvm.experiment;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jkvm.experiment.ExperimentSpec.Guest;
import org.jkvm.experiment.ExperimentSpec.Variant;
import org.jkvm.experiment.ExperimentSpec.Workload;
import org.jkvm.experiment.JsonTree.Arr;
import org.jkvm.experiment.JsonTree.Bool;
import org.jkvm.experiment.JsonTree.Member;
import org.jkvm.experiment.JsonTree.Node;
import org.jkvm.experiment.JsonTree.Num;
import org.jkvm.experiment.JsonTree.Obj;
import org.jkvm.experiment.JsonTree.Pos;
import org.jkvm.experiment.JsonTree.Str;
import org.jkvm.pvlock.PvLockDevice;
import org.jkvm.pvlock.PvLockMode;
import org.jkvm.vmm.config.CpuOptions;
import org.jkvm.vmm.config.CpuSet;
import org.jkvm.vmm.config.Sizes;

/** Turns spec JSON into an {@link ExperimentSpec}, collecting every problem with its place. */
final class SpecReader {
    private static final List<String> TOP = List.of("name", "guest", "vcpus", "memory", "pin", "vmm_pin", "vms", "workloads",
            "variants", "reference", "repetitions", "warmup", "timeout", "preemptors");
    private static final List<String> GUEST = List.of("kernel", "initrd", "rootfs", "cmdline");
    private static final List<String> WORKLOAD = List.of("name", "label", "workers", "seconds", "profile", "command");
    /** A command's placeholders, to find the ones it may not use. */
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{[^{}\\s]*}");
    private static final List<String> VARIANT = List.of("name", "base", "pvlock", "pvlock_batch", "steal_time", "pmu", "ptrauth", "sve", "kernel",
            "host_kernel_args", "vcpus", "pin", "vmm_pin", "cmdline", "profile");
    private static final List<String> PVLOCK = List.of("off", "userspace", "kernel", "auto", "track-only");
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._+-]*");

    private final Path source;
    private final String file;
    private final Path dir;
    private final boolean requireFiles;
    private final Map<String, String> env;
    private final List<SpecError> errors = new ArrayList<>();
    private final Set<String> variables = new TreeSet<>();
    /** Where the fields the run checks refer to are, by field path ("" for the document). */
    private final Map<String, Pos> places = new HashMap<>();
    /** Fields the run checks have reported. */
    private final Set<String> reported = new HashSet<>();
    private static final Pattern VAR = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)}");

    SpecReader(Path source, boolean requireFiles, Map<String, String> env) {
        this.env = env;
        this.source = source;
        this.file = source.toString();
        Path abs = source.toAbsolutePath().getParent();
        this.dir = abs == null ? Path.of("").toAbsolutePath() : abs;
        this.requireFiles = requireFiles;
    }

    ExperimentSpec read(String text) {
        Node root;
        try {
            root = JsonTree.parse(text);
        } catch (JsonTree.SyntaxError e) {
            throw new SpecException(List.of(new SpecError(file, e.pos.line(), e.pos.col(), "", "bad JSON: " + e.getMessage())));
        }
        ExperimentSpec spec = top(root);
        if (!errors.isEmpty()) {
            List<SpecError> sorted = new ArrayList<>(errors);
            sorted.sort(Comparator.comparingInt(SpecError::line).thenComparingInt(SpecError::col));
            throw new SpecException(sorted);
        }
        return spec;
    }

    private void error(Pos p, String field, String message) {
        errors.add(new SpecError(file, p.line(), p.col(), field, message));
    }

    private static String at(String path, String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    private ExperimentSpec top(Node root) {
        Obj o = object(root, "");
        if (o == null) return null;
        places.put("", o.pos());
        known(o, "", TOP);
        String name = name(required(o, "", "name"), "name");
        Node guestN = required(o, "", "guest");
        Guest guest = guest(guestN);
        int vcpus = positive(placed("vcpus", required(o, "", "vcpus")), "vcpus", Integer.MAX_VALUE);
        long memory = memory(o.members().get("memory"));
        String pin = cpus(placed("pin", required(o, "", "pin")), "pin");
        Member vmmPinM = o.members().get("vmm_pin");
        String vmmPin = vmmPinM == null ? null : cpus(placed("vmm_pin", vmmPinM.value()), "vmm_pin");
        Member vmsM = o.members().get("vms");
        int vms = vmsM == null ? 1 : positive(vmsM.value(), "vms", 1024);
        Node workloadsN = required(o, "", "workloads");
        List<Workload> workloads = workloads(workloadsN);
        if (guestN instanceof Obj g) guestFiles(g, workloadsN);
        List<Variant> variants = new ArrayList<>();
        Set<String> names = new LinkedHashSet<>();
        String base = variants(required(o, "", "variants"), variants, names);
        String reference = null;
        Member refM = o.members().get("reference");
        if (refM != null) {
            reference = string(refM.value(), "reference");
            if (reference != null) {
                final String r = reference;
                if (!names.contains(r)) {
                    error(refM.value().pos(), "reference", refM.value().show() + " names no variant; variants: "
                            + String.join(", ", names));
                } else if (reference.equals(base)) {
                    error(refM.value().pos(), "reference", refM.value().show()
                            + " is the base variant; the reference is the no-overcommit run the base is measured against");
                }
            }
        }
        int repetitions = positive(placed("repetitions", required(o, "", "repetitions")), "repetitions", 100_000);
        Member wM = o.members().get("warmup");
        int warmup = wM == null ? 0 : count(wM.value(), "warmup");
        Member tM = o.members().get("timeout");
        int timeout = tM == null ? 0 : positive(placed("timeout", tM.value()), "timeout", 7 * 24 * 3600);
        boolean preemptors = onOff(o, "", "preemptors", false);
        long runs = ExperimentSpec.runCount(variants.size(), workloads.size(), repetitions, warmup);
        if (runs > ExperimentSpec.MAX_RUNS) {
            error(place("repetitions"), "repetitions", variants.size() + " variants x " + workloads.size() + " workloads x ("
                    + repetitions + " + " + warmup + " warm-up) = " + runs + " runs; a spec may ask for at most "
                    + ExperimentSpec.MAX_RUNS);
        }
        if (!errors.isEmpty()) return null;
        ExperimentSpec spec = new ExperimentSpec(source, name, guest, vcpus, memory, pin, vmmPin, vms, workloads, variants, base,
                reference, repetitions, warmup, timeout, preemptors, variables);
        SpecRunChecks.vms(spec, this::errorOnce);
        SpecRunChecks.vmmPin(spec, this::errorOnce);
        if (requireFiles && errors.isEmpty()) SpecRunChecks.boots(spec, this::errorOnce);
        return spec;
    }

    /** Reports a problem the run checks found at its field, once however many runs share the value. */
    private void errorOnce(String field, String message) {
        if (reported.add(field)) error(place(field), field, message);
    }

    /** Notes where {@code field}'s value is, for the run checks; returns {@code n}. */
    private Node placed(String field, Node n) {
        if (n != null) places.put(field, n.pos());
        return n;
    }

    private Pos place(String field) {
        return places.getOrDefault(field, places.get(""));
    }

    private Guest guest(Node n) {
        Obj o = object(n, "guest");
        if (o == null) return null;
        known(o, "guest", GUEST);
        Path kernel = file(placed("guest.kernel", required(o, "guest", "kernel")), "guest.kernel");
        Member iM = o.members().get("initrd");
        Path initrd = iM == null ? null : file(iM.value(), "guest.initrd");
        Member rM = o.members().get("rootfs");
        Path rootfs = rM == null ? null : file(placed("guest.rootfs", rM.value()), "guest.rootfs");
        String cmdline = guestArgs(o.members().get("cmdline"), "guest.cmdline");
        return new Guest(kernel, initrd, rootfs, cmdline == null ? "" : cmdline);
    }

    /**
     * The initrd is needed unless every workload has a "command" (a spec whose workloads are no
     * list needs it too, as before commands), the root file system when any has; read from the
     * workloads as written, so that a mistake in one is not also reported here.
     */
    private void guestFiles(Obj guest, Node workloads) {
        List<Node> items = workloads instanceof Arr a ? a.items() : List.of();
        boolean commands = items.stream().anyMatch(w -> w instanceof Obj o && o.members().containsKey("command"));
        boolean initramfs = items.stream().anyMatch(w -> !(w instanceof Obj o && o.members().containsKey("command")));
        if (!guest.members().containsKey("initrd") && (!commands || initramfs)) {
            error(guest.pos(), "guest.initrd", "missing; this object needs it");
        }
        if (!guest.members().containsKey("rootfs") && commands) {
            error(guest.pos(), "guest.rootfs", "missing; workloads with a \"command\" boot on it"
                    + " (e.g. \"${JKVM_DEBIAN_ROOTFS}\", which guest/debian-rootfs/build prints)");
        }
    }

    private List<Workload> workloads(Node n) {
        List<Workload> out = new ArrayList<>();
        Arr a = list(n, "workloads");
        if (a == null) return out;
        Map<String, Pos> labels = new HashMap<>();
        for (int i = 0; i < a.items().size(); i++) {
            String path = "workloads[" + i + "]";
            Obj o = object(a.items().get(i), path);
            if (o == null) continue;
            known(o, path, WORKLOAD);
            Member cM = o.members().get("command");
            String command = cM == null ? null : command(cM.value(), at(path, "command"));
            Node nameN = null;
            String name;
            if (cM != null) {
                commandNaming(o, path);
                name = ExperimentSpec.COMMAND;
            } else {
                nameN = required(o, path, "name");
                name = nameN == null ? null : string(nameN, at(path, "name"));
                if (name != null && !ExperimentSpec.WORKLOADS.contains(name)) {
                    error(nameN.pos(), at(path, "name"), nameN.show() + " is not one of " + String.join(", ", ExperimentSpec.WORKLOADS));
                    name = null;
                }
            }
            Member lM = o.members().get("label");
            String label = lM == null ? name : name(lM.value(), at(path, "label"));
            Pos labelPos = lM == null ? (nameN == null ? o.pos() : nameN.pos()) : lM.value().pos();
            int workers = positive(required(o, path, "workers"), at(path, "workers"), 1 << 20);
            int seconds = positive(required(o, path, "seconds"), at(path, "seconds"), 7 * 24 * 3600);
            if (label != null) {
                Pos first = labels.putIfAbsent(label, labelPos);
                if (first != null) {
                    error(labelPos, at(path, lM == null ? "name" : "label"), "\"" + label + "\" is used by an earlier workload (line "
                            + first.line() + "); give one a \"label\" to tell them apart");
                }
            }
            boolean profile = onOff(o, path, "profile", false);
            if (name != null && label != null && (cM == null || command != null)) {
                out.add(new Workload(name, label, workers, seconds, profile, command));
            }
        }
        if (a.items().isEmpty()) error(a.pos(), "workloads", "the list is empty; name at least one workload");
        return out;
    }

    /**
     * Checks a command workload's naming: it must have a label (its name is {@link ExperimentSpec#COMMAND});
     * a "name" beside a command is refused.
     */
    private void commandNaming(Obj o, String path) {
        Member nM = o.members().get("name");
        if (nM != null) error(nM.keyPos(), at(path, "name"), "a workload with a \"command\" has no name; give it a \"label\"");
        Member lM = o.members().get("label");
        if (lM == null) error(o.pos(), at(path, "label"), "missing; a workload with a \"command\" needs one");
    }

    /**
     * A command: not blank, placeholders only {@value Workload#WORKERS} and {@value Workload#SECONDS},
     * and stress-ng's metrics asked for (they are its result).
     */
    private String command(Node n, String path) {
        String c = string(placed(path, n), path);
        if (c == null) return null;
        if (c.isBlank()) {
            error(n.pos(), path, "the command is empty");
            return null;
        }
        Matcher m = PLACEHOLDER.matcher(c);
        while (m.find()) {
            if (!m.group().equals(Workload.WORKERS) && !m.group().equals(Workload.SECONDS)) {
                error(n.pos(), path, m.group() + " is not a placeholder; a command takes " + Workload.WORKERS + " and " + Workload.SECONDS);
                return null;
            }
        }
        if (!c.contains("stress-ng") || !c.contains("--metrics")) {
            error(n.pos(), path, "its result is stress-ng's bogo ops/s: run stress-ng with --metrics-brief");
            return null;
        }
        return c.strip();
    }

    /** Fills {@code out} and returns the base variant's name. */
    private String variants(Node n, List<Variant> out, Set<String> allNames) {
        Arr a = list(n, "variants");
        if (a == null) return null;
        if (a.items().isEmpty()) {
            error(a.pos(), "variants", "the list is empty; name at least one variant");
            return null;
        }
        Map<String, Pos> names = new HashMap<>();
        String base = null;
        Pos basePos = null;
        String first = null;
        for (int i = 0; i < a.items().size(); i++) {
            String path = "variants[" + i + "]";
            Obj o = object(a.items().get(i), path);
            if (o == null) continue;
            known(o, path, VARIANT);
            Node nameN = required(o, path, "name");
            String name = nameN == null ? null : name(nameN, at(path, "name"));
            if (name != null) {
                Pos prev = names.putIfAbsent(name, nameN.pos());
                if (prev != null) error(nameN.pos(), at(path, "name"), "\"" + name + "\" is already the name of an earlier variant (line " + prev.line() + ")");
                if (first == null) first = name;
                allNames.add(name);
            }
            Member bM = o.members().get("base");
            if (bM != null && bool(bM.value(), at(path, "base"))) {
                if (base != null) {
                    error(bM.value().pos(), at(path, "base"), "only one variant can be the base; \"" + base + "\" already is (line " + basePos.line() + ")");
                } else {
                    base = name;
                    basePos = bM.value().pos();
                }
            }
            PvLockMode pvlock = null;
            Node pN = required(o, path, "pvlock");
            if (pN != null) {
                String p = string(pN, at(path, "pvlock"));
                if (p != null && !PVLOCK.contains(p)) error(pN.pos(), at(path, "pvlock"), pN.show() + " is not one of " + String.join(", ", PVLOCK));
                else if (p != null) pvlock = PvLockMode.parse(p);
            }
            int batch = pvLockBatch(o.members().get("pvlock_batch"), at(path, "pvlock_batch"), pvlock);
            boolean steal = onOff(o, path, "steal_time", true);
            boolean pmu = onOff(o, path, "pmu", false);
            CpuOptions cpu = new CpuOptions(onOff(o, path, "ptrauth", CpuOptions.DEFAULT.ptrAuth()),
                    onOff(o, path, "sve", CpuOptions.DEFAULT.sve()));
            Member kM = o.members().get("kernel");
            Path kernel = kM == null ? null : file(placed(at(path, "kernel"), kM.value()), at(path, "kernel"));
            Member hM = o.members().get("host_kernel_args");
            String host = hM == null ? null : string(hM.value(), at(path, "host_kernel_args"));
            Member vM = o.members().get("vcpus");
            int vcpus = vM == null ? 0 : positive(placed(at(path, "vcpus"), vM.value()), at(path, "vcpus"), Integer.MAX_VALUE);
            Member pinM = o.members().get("pin");
            String pin = pinM == null ? null : cpus(placed(at(path, "pin"), pinM.value()), at(path, "pin"));
            Member vmmM = o.members().get("vmm_pin");
            String vmmPin = vmmM == null ? null : variantVmmPin(placed(at(path, "vmm_pin"), vmmM.value()), at(path, "vmm_pin"));
            String cmdline = guestArgs(o.members().get("cmdline"), at(path, "cmdline"));
            boolean profile = onOff(o, path, "profile", false);
            if (name != null && pvlock != null) {
                out.add(new Variant(name, pvlock, batch, steal, pmu, cpu, kernel, host == null ? null : host.strip(), vcpus, pin, vmmPin, cmdline, profile));
            }
        }
        return base != null ? base : first;
    }

    // ---- field helpers: each reports its own problem and returns null/0 on failure ----

    /** A variant's pvlock_batch: milliseconds, for a mode whose tracker it paces. */
    private int pvLockBatch(Member m, String path, PvLockMode pvlock) {
        if (m == null) return 0;
        int ms = integer(m.value(), path, 0, PvLockDevice.MAX_BATCH_MILLIS, "a whole number of milliseconds, 0 or more");
        if (ms > 0 && pvlock != null && !pvlock.mayTrack()) {
            error(m.value().pos(), path, "paces the userspace tracker, which pvlock \"" + pvlock.cliName()
                    + "\" does not run; use it with userspace, track-only or auto, or remove it");
        }
        return ms;
    }

    /** A variant's vmm_pin: a CPU list, or {@value ExperimentSpec#VMM_PIN_NONE}. */
    private String variantVmmPin(Node n, String path) {
        if (n instanceof Str s && s.value().equals(ExperimentSpec.VMM_PIN_NONE)) return ExperimentSpec.VMM_PIN_NONE;
        return cpus(n, path, ", or \"" + ExperimentSpec.VMM_PIN_NONE + "\" to leave the rest of jkvm unpinned");
    }

    /** Guest kernel arguments (stripped), or null when absent or refused. */
    private String guestArgs(Member m, String path) {
        if (m == null) return null;
        String args = string(placed(path, m.value()), path);
        if (args != null && args.contains("jkvm.workload")) {
            error(m.value().pos(), path, "jkvm.workload= and friends come from the workloads list; take them out here");
        } else if (args != null && args.contains("jkvm.cmd")) {
            error(m.value().pos(), path, "jkvm.cmd= comes from a workload's \"command\"; take it out here");
        }
        return args == null || args.isBlank() ? null : args.strip();
    }

    private void known(Obj o, String path, List<String> fields) {
        for (Member m : o.members().values()) {
            if (!fields.contains(m.key())) {
                error(m.keyPos(), at(path, m.key()), "unknown field; " + (path.isEmpty() ? "the spec" : path) + " takes " + String.join(", ", fields));
            }
        }
    }

    private Node required(Obj o, String path, String key) {
        if (o == null) return null;
        Member m = o.members().get(key);
        if (m == null) {
            error(o.pos(), at(path, key), "missing; this object needs it");
            return null;
        }
        return m.value();
    }

    private Obj object(Node n, String path) {
        if (n == null) return null;
        if (n instanceof Obj o) return o;
        error(n.pos(), path, "expected an object {...}, found " + n.kind());
        return null;
    }

    private Arr list(Node n, String path) {
        if (n == null) return null;
        if (n instanceof Arr a) return a;
        error(n.pos(), path, "expected a list [...], found " + n.kind());
        return null;
    }

    private String string(Node n, String path) {
        if (n == null) return null;
        if (n instanceof Str s) return s.value();
        error(n.pos(), path, "expected a string, found " + n.kind() + " " + n.show());
        return null;
    }

    /** An optional on/off field (or true/false); {@code absent} when it is not there. */
    private boolean onOff(Obj o, String path, String field, boolean absent) {
        Member m = o.members().get(field);
        if (m == null) return absent;
        Node n = m.value();
        switch (n) {
            case Bool b -> { return b.value(); }
            case Str str when str.value().equals("on") -> { return true; }
            case Str str when str.value().equals("off") -> { return false; }
            default -> {
                error(n.pos(), at(path, field), n.show() + " is not one of on, off");
                return absent;
            }
        }
    }

    private boolean bool(Node n, String path) {
        if (n instanceof Bool b) return b.value();
        error(n.pos(), path, "expected true or false, found " + n.show());
        return false;
    }

    private String name(Node n, String path) {
        String s = string(n, path);
        if (s == null) return null;
        if (!NAME.matcher(s).matches()) {
            error(n.pos(), path, n.show() + " is not a usable name: letters, digits and . _ + - only, starting with a letter or digit (names become part of run ids)");
            return null;
        }
        return s;
    }

    private int positive(Node n, String path, int max) {
        return integer(n, path, 1, max, "a positive whole number");
    }

    private int count(Node n, String path) {
        return integer(n, path, 0, 100_000, "a whole number, 0 or more");
    }

    private int integer(Node n, String path, int min, int max, String what) {
        if (n == null) return 0;
        if (n instanceof Num num && num.isIntegral()) {
            long v;
            try {
                v = Long.parseLong(num.text());
            } catch (NumberFormatException e) {
                v = Long.MAX_VALUE;
            }
            if (v >= min && v <= max) return (int) v;
            if (v > max && v >= min) {
                error(n.pos(), path, num.text() + " is too large (at most " + max + ")");
                return 0;
            }
        }
        error(n.pos(), path, "must be " + what + ", not " + n.show());
        return 0;
    }

    private long memory(Member m) {
        if (m == null) return 512L << 20;
        Node n = placed("memory", m.value());
        try {
            long v = switch (n) {
                case Str s -> Sizes.parse(s.value());
                case Num num when num.isIntegral() -> Long.parseLong(num.text());
                default -> -1;
            };
            if (v >= 0) return v;
        } catch (IllegalArgumentException e) {
            // reported below
        }
        error(n.pos(), "memory", n.show() + " is not a memory size; write e.g. \"512M\" or \"2G\"");
        return 0;
    }

    private String cpus(Node n, String path) {
        return cpus(n, path, "");
    }

    /** A host CPU list, normalised; {@code alternative} is what else the field takes, for the error. */
    private String cpus(Node n, String path, String alternative) {
        if (n == null) return null;
        String s = n instanceof Num num && num.isIntegral() ? num.text() : string(n, path);
        if (s == null) return null;
        try {
            return CpuSet.format(CpuSet.parse(s));
        } catch (IllegalArgumentException e) {
            error(n.pos(), path, n.show() + " is not a host CPU list; write e.g. \"0\", \"0-3\" or \"0,2,4-7\"" + alternative);
            return null;
        }
    }

    private Path file(Node n, String path) {
        String s = string(n, path);
        if (s == null) return null;
        if (s.isBlank()) {
            error(n.pos(), path, "the path is empty");
            return null;
        }
        java.util.regex.Matcher m = VAR.matcher(s);
        StringBuilder expanded = new StringBuilder();
        boolean unset = false;
        while (m.find()) {
            variables.add(m.group(1));
            String value = env.get(m.group(1));
            if (value == null || value.isEmpty()) {
                unset = true;
                if (requireFiles) {
                    error(n.pos(), path, "the environment variable " + m.group(1) + " is not set"
                            + (m.group(1).startsWith("JKVM_") ? " (guest/build and guest/workloads/build print it)" : ""));
                    return null;
                }
                m.appendReplacement(expanded, java.util.regex.Matcher.quoteReplacement(m.group()));
            } else {
                m.appendReplacement(expanded, java.util.regex.Matcher.quoteReplacement(value));
            }
        }
        m.appendTail(expanded);
        Path p;
        try {
            p = dir.resolve(expanded.toString()).normalize();
        } catch (InvalidPathException e) {
            error(n.pos(), path, "not a usable path (" + e.getReason() + ")");
            return null;
        }
        if (requireFiles && !unset && !Files.isRegularFile(p)) {
            error(n.pos(), path, "no such file: " + p + (s.startsWith("/") ? "" : " (relative paths start at the spec's folder)"));
        }
        return p;
    }
}
