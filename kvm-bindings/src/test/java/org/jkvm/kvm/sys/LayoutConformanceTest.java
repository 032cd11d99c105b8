package org.jkvm.kvm.sys;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Checks the jextract-generated layer against the C compiler: {@code src/test/c/layout.c},
 * built for each architecture from the same pinned headers by {@code run-layout.sh}, prints
 * sizes, offsets, member sizes, every generated constant and the positions of the bitfields
 * jextract cannot express (the JKVM_PERF_ATTR_FLAG_* masks); each fact must hold for the
 * generated Java classes, every C name must exist on the Java side, and every generated
 * constant and struct must be covered by the C side.
 *
 * <p>Skipped (not passed) when gcc, the aarch64 cross compiler, qemu-user-static or the
 * headers are missing; the skip message names the Debian packages to install.
 */
@Tag("unit")
class LayoutConformanceTest {

    private static final String BASE_PACKAGE = "org.jkvm.kvm.sys";
    private static final BigInteger TWO_32 = BigInteger.ONE.shiftLeft(32);
    private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);
    /** Masks of bits inside a bitfield word (include/jkvm_perf.h); each needs a "bitfield" fact. */
    private static final String BITFIELD_MASK_PREFIX = "JKVM_PERF_ATTR_FLAG_";

    @ParameterizedTest(name = "{0}")
    @CsvSource({"x86_64, KvmX86", "aarch64, KvmArm64"})
    void generatedLayerMatchesTheCCompiler(String arch, String headerClassName) throws Exception {
        Path module = moduleDir();
        List<String> facts = runLayout(module, arch);

        Class<?> header = Class.forName(BASE_PACKAGE + "." + arch + "." + headerClassName);
        Map<String, Method> javaConstants = constants(header);

        List<String> failures = new ArrayList<>();
        Map<String, BigInteger> cConstants = new TreeMap<>();
        Map<String, Integer> cConstantSizes = new TreeMap<>();
        TreeSet<String> cStructs = new TreeSet<>();
        Map<String, BigInteger> cBitfields = new TreeMap<>();

        for (String line : facts) {
            String[] f = line.trim().split(" ");
            if (f.length != 3) {
                failures.add("unparseable line from layout.c: '" + line + "'");
                continue;
            }
            String kind = f[0], name = f[1], value = f[2];
            try {
                switch (kind) {
                    case "const" -> cConstants.put(name, new BigInteger(value));
                    case "constsize" -> cConstantSizes.put(name, Integer.parseInt(value));
                    case "bitfield" -> cBitfields.put(name, new BigInteger(value));
                    case "size" -> {
                        cStructs.add(name);
                        structLayout(arch, name, failures).ifPresent(l ->
                                check(failures, "sizeof(struct " + name + ")", Long.parseLong(value), l.byteSize()));
                    }
                    case "offset", "fieldsize" -> {
                        int dot = name.indexOf('.');
                        String struct = name.substring(0, dot);
                        String path = name.substring(dot + 1);
                        structLayout(arch, struct, failures).ifPresent(l -> {
                            Member m = resolve(l, path);
                            if (m == null) {
                                failures.add("missing in Java: field " + name + " (struct " + struct + ")");
                            } else if (kind.equals("offset")) {
                                check(failures, "offsetof(" + name + ")", Long.parseLong(value), m.offset());
                            } else {
                                check(failures, "sizeof(" + name + ")", Long.parseLong(value), m.layout().byteSize());
                            }
                        });
                    }
                    default -> failures.add("unknown kind in layout.c output: '" + line + "'");
                }
            } catch (NumberFormatException e) {
                failures.add("bad number in line '" + line + "'");
            }
        }

        for (var e : cConstants.entrySet()) {
            String name = e.getKey();
            Method m = javaConstants.get(name);
            if (m == null) {
                failures.add("missing in Java: constant " + name + " (" + headerClassName + "." + name + "())");
                continue;
            }
            checkConstant(failures, name, e.getValue(), cConstantSizes.get(name), m.invoke(null));
        }
        for (String name : javaConstants.keySet()) {
            if (!cConstants.containsKey(name)) {
                failures.add("not checked by layout.c: constant " + headerClassName + "." + name
                        + "() (rerun kvm-bindings/regen, which rewrites constants_" + arch + ".inc)");
            }
        }
        // jextract cannot express bitfields: jkvm_perf.h names their masks, and layout.c sets
        // each bitfield in a real struct and prints the word it lands in.
        for (var e : cBitfields.entrySet()) {
            String name = e.getKey();
            Method m = javaConstants.get(name);
            if (m == null) {
                failures.add("missing in Java: bitfield mask " + name + " (" + headerClassName + "." + name + "())");
                continue;
            }
            BigInteger java = BigInteger.valueOf(((Number) m.invoke(null)).longValue()).mod(TWO_64);
            if (!java.equals(e.getValue())) {
                failures.add("bitfield " + name + ": setting it in C gives the word 0x" + e.getValue().toString(16)
                        + " at JKVM_PERF_ATTR_FLAGS_OFFSET, the macro says 0x" + java.toString(16)
                        + " (0: the bitfield is outside that word)");
            }
        }
        for (String name : javaConstants.keySet()) {
            if (name.startsWith(BITFIELD_MASK_PREFIX) && !cBitfields.containsKey(name)) {
                failures.add("not checked by layout.c: bitfield mask " + name + " (add B(field, " + name + ") to perf())");
            }
        }
        for (String struct : generatedStructs(module, arch, headerClassName)) {
            if (!cStructs.contains(struct)) {
                failures.add("not checked by layout.c: struct " + struct + " (add S(" + struct + ") and its fields)");
            }
        }

        assertFalse(cConstants.isEmpty(), "layout.c printed no constants");
        assertFalse(cStructs.isEmpty(), "layout.c printed no structs");
        if (!failures.isEmpty()) {
            fail(arch + ": " + failures.size() + " mismatch(es) between the generated classes and the C compiler:\n  "
                    + String.join("\n  ", failures.subList(0, Math.min(failures.size(), 200))));
        }
        assertEquals(List.of(), failures);
    }

    // ---------------------------------------------------------------------------------------

    /** The module directory: Maven runs tests there; also works from the repository root. */
    private static Path moduleDir() {
        Path cwd = Path.of("").toAbsolutePath();
        for (Path candidate : List.of(cwd, cwd.resolve("kvm-bindings"))) {
            if (Files.isRegularFile(candidate.resolve("src/test/c/run-layout.sh"))) {
                return candidate;
            }
        }
        throw new IllegalStateException("cannot find kvm-bindings/src/test/c/run-layout.sh from " + cwd);
    }

    private static List<String> runLayout(Path module, String arch) throws IOException, InterruptedException {
        Path script = module.resolve("src/test/c/run-layout.sh");
        Process p = new ProcessBuilder("bash", script.toString(), arch)
                .directory(module.toFile())
                .redirectErrorStream(false)
                .start();
        p.getOutputStream().close();
        // Read stderr on its own thread so neither pipe can fill up and block the script.
        var stderr = new StringBuilder();
        Thread errReader = Thread.ofPlatform().start(() -> {
            try {
                stderr.append(new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException ignored) {
                // the process output is what matters; a broken stderr pipe is reported below
            }
        });
        String stdout = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("run-layout.sh " + arch + " did not finish within 300 s");
        }
        errReader.join();
        int rc = p.exitValue();
        Assumptions.assumeTrue(rc != 77, () -> arch + " layout conformance skipped: " + stderr.toString().strip());
        if (rc != 0) {
            fail("run-layout.sh " + arch + " failed (exit " + rc + "):\n" + stderr);
        }
        return stdout.lines().filter(l -> !l.isBlank()).toList();
    }

    /** Public static no-argument int/long methods of the header class (and its superclasses). */
    private static Map<String, Method> constants(Class<?> header) {
        Map<String, Method> result = new TreeMap<>();
        for (Method m : header.getMethods()) {
            if (Modifier.isStatic(m.getModifiers()) && m.getParameterCount() == 0
                    && (m.getReturnType() == int.class || m.getReturnType() == long.class)) {
                result.put(m.getName(), m);
            }
        }
        return result;
    }

    private static Optional<GroupLayout> structLayout(String arch, String struct, List<String> failures) {
        try {
            Class<?> c = Class.forName(BASE_PACKAGE + "." + arch + "." + struct);
            return Optional.of((GroupLayout) c.getMethod("layout").invoke(null));
        } catch (ClassNotFoundException e) {
            String msg = "missing in Java: struct " + struct + " (class " + BASE_PACKAGE + "." + arch + "." + struct + ")";
            if (!failures.contains(msg)) {
                failures.add(msg);
            }
            return Optional.empty();
        } catch (ReflectiveOperationException e) {
            failures.add("struct " + struct + ": cannot call layout(): " + e);
            return Optional.empty();
        }
    }

    private record Member(long offset, MemoryLayout layout) {}

    /**
     * Resolves a C member path (a.b.c) in a jextract layout. C's anonymous structs and unions
     * appear in the layout as groups named "$anon$..." (or unnamed): they are looked through.
     */
    private static Member resolve(GroupLayout root, String path) {
        Member current = new Member(0, root);
        for (String part : path.split("\\.")) {
            if (!(current.layout() instanceof GroupLayout g)) {
                return null;
            }
            Member m = find(g, part);
            if (m == null) {
                return null;
            }
            current = new Member(current.offset() + m.offset(), m.layout());
        }
        return current;
    }

    private static Member find(GroupLayout g, String name) {
        List<MemoryLayout> members = g.memberLayouts();
        for (int i = 0; i < members.size(); i++) {
            MemoryLayout m = members.get(i);
            long off = g.byteOffset(PathElement.groupElement(i));
            Optional<String> n = m.name();
            if (n.isPresent() && n.get().equals(name)) {
                return new Member(off, m);
            }
            if (m instanceof GroupLayout inner && (n.isEmpty() || n.get().startsWith("$anon$"))) {
                Member found = find(inner, name);
                if (found != null) {
                    return new Member(off + found.offset(), found.layout());
                }
            }
        }
        return null;
    }

    private static void check(List<String> failures, String what, long c, long java) {
        if (c != java) {
            failures.add(what + ": C says " + c + ", Java says " + java);
        }
    }

    /**
     * jextract gives a C constant the Java type of its C type's width: int for 4 bytes, long for
     * 8 (C unsigned int 0x80000000 and up become negative ints). The Java value must be the C
     * value's two's complement at that width, with nothing cut off.
     */
    private static void checkConstant(List<String> failures, String name, BigInteger c, Integer cSize, Object java) {
        int bits = java instanceof Integer ? 32 : 64;
        BigInteger range = bits == 32 ? TWO_32 : TWO_64;
        BigInteger javaValue = BigInteger.valueOf(((Number) java).longValue());
        if (cSize == null) {
            failures.add("layout.c printed no constsize for " + name);
        } else if (cSize * 8 != bits) {
            failures.add("constant " + name + ": C type is " + cSize + " bytes, Java type is "
                    + java.getClass().getSimpleName());
        }
        boolean fits = c.signum() >= 0 ? c.compareTo(range) < 0 : c.negate().compareTo(range.shiftRight(1)) <= 0;
        if (!fits || !c.mod(range).equals(javaValue.mod(range))) {
            failures.add("constant " + name + ": C says " + c + ", Java says " + java
                    + " (" + java.getClass().getSimpleName() + ")");
        }
    }

    /** The struct classes regen wrote for the architecture (one per .java besides the header's). */
    private static List<String> generatedStructs(Path module, String arch, String headerClassName) throws IOException {
        Path dir = module.resolve("src/main/java/org/jkvm/kvm/sys").resolve(arch);
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".java"))
                    .map(n -> n.substring(0, n.length() - ".java".length()))
                    .filter(n -> !n.startsWith(headerClassName))
                    .sorted()
                    .toList();
        }
    }
}
