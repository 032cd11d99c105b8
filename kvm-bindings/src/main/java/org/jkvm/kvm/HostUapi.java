package org.jkvm.kvm;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemoryLayout.PathElement;

/**
 * The generated uapi constants and layouts of the host's architecture. Code shared by both
 * architectures reads the ioctl numbers and struct layouts through here, once, into static
 * finals, so it never copies a number and never names one architecture's generated classes;
 * the architecture's {@link Uapi} is picked once and answers by direct calls, without
 * reflection. Architecture-specific code uses its generated classes directly.
 */
final class HostUapi {
    private HostUapi() {}

    static final Arch ARCH = Arch.host();
    private static final Uapi HOST = of(ARCH);

    /** The generated values of an architecture. */
    static Uapi of(Arch arch) {
        return arch == Arch.AARCH64 ? new Arm64Uapi() : new X86Uapi();
    }

    /** The value of a generated constant (a macro or enum value) of the host architecture. */
    static long constant(UapiConstant c) {
        return HOST.constant(c);
    }

    /**
     * An ioctl request number. The generated constants are C {@code unsigned int}s, which Java
     * sees as negative for _IOR/_IOWR requests; the request is the unsigned value.
     */
    static long request(UapiConstant c) {
        return unsigned(constant(c));
    }

    /** The unsigned 32-bit value of a generated ioctl request constant. */
    static long unsigned(long request) {
        return request & 0xFFFF_FFFFL;
    }

    /** The host's KVM_EXIT_* number of an exit reason. */
    static int exitReason(ExitReason r) {
        return HOST.exitReason(r);
    }

    /** The host's KVM_CAP_* number of a capability. */
    static int capability(Capability c) {
        return HOST.capability(c);
    }

    /** The generated layout of a C struct of the host architecture. */
    static GroupLayout struct(UapiStruct s) {
        return HOST.struct(s);
    }

    /**
     * The byte offset of a (possibly nested) member, looking through anonymous unions and
     * structs as C does: {@code offset(kvm_run, "mmio", "len")}.
     */
    static long offset(UapiStruct s, String... path) {
        return offset(HOST.struct(s), path);
    }

    /** The layout of a (possibly nested) member; see {@link #offset(UapiStruct, String...)}. */
    static MemoryLayout member(UapiStruct s, String... path) {
        return resolve(HOST.struct(s), path).layout();
    }

    /** The byte offset of a (possibly nested) member of a generated layout; see above. */
    static long offset(GroupLayout struct, String... path) {
        return resolve(struct, path).offset();
    }

    private record Member(long offset, MemoryLayout layout) {}

    private static Member resolve(GroupLayout struct, String... path) {
        Member m = new Member(0, struct);
        String structName = struct.name().orElse("struct");
        for (String name : path) {
            if (!(m.layout() instanceof GroupLayout g)) {
                throw new IllegalStateException(structName + ": " + name + " is inside a non-struct member");
            }
            Member child = find(g, name);
            if (child == null) {
                throw new IllegalStateException("struct " + structName + " has no member "
                        + String.join(".", path) + " in the generated bindings for " + ARCH);
            }
            m = new Member(m.offset() + child.offset(), child.layout());
        }
        return m;
    }

    /** A direct member named {@code name}, or one inside an unnamed member, or null. */
    private static Member find(GroupLayout g, String name) {
        for (MemoryLayout e : g.memberLayouts()) {
            if (e.name().isEmpty() || e instanceof java.lang.foreign.PaddingLayout) continue;
            String n = e.name().get();
            long at = g.byteOffset(PathElement.groupElement(n));
            if (n.equals(name)) return new Member(at, e);
            if (n.startsWith("$anon$") && e instanceof GroupLayout inner) {
                Member deeper = find(inner, name);
                if (deeper != null) return new Member(at + deeper.offset(), deeper.layout());
            }
        }
        return null;
    }
}
