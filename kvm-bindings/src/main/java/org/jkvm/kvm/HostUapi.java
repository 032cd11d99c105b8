package org.jkvm.kvm;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.reflect.InvocationTargetException;

/**
 * The generated uapi constants and layouts of the host's architecture, looked up by their C
 * names. Code shared by both architectures reads the ioctl numbers and struct layouts through
 * here, once, into static finals, so it never copies a number and never names one
 * architecture's generated classes. Architecture-specific code uses its generated classes
 * directly.
 */
final class HostUapi {
    private HostUapi() {}

    static final Arch ARCH = Arch.host();

    /** The value of a generated constant (a macro or enum value) of the host architecture. */
    static long constant(String name) {
        return constant(ARCH, name);
    }

    /**
     * An ioctl request number. The generated constants are C {@code unsigned int}s, which Java
     * sees as negative for _IOR/_IOWR requests; the request is the unsigned value.
     */
    static long request(String name) {
        return unsigned(constant(name));
    }

    /** The unsigned 32-bit value of a generated ioctl request constant. */
    static long unsigned(long request) {
        return request & 0xFFFF_FFFFL;
    }

    static long constant(Arch arch, String name) {
        try {
            Object v = Class.forName(arch.headerClassName()).getMethod(name).invoke(null);
            return switch (v) {
                case Integer i -> i;
                case Long l -> l;
                case Short s -> s;
                case Byte b -> b;
                default -> throw new IllegalStateException(name + " is not an integer constant: " + v);
            };
        } catch (ClassNotFoundException | NoSuchMethodException | IllegalAccessException e) {
            throw new IllegalStateException("generated bindings for " + arch + " lack " + name, e);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("reading " + name + " failed", e.getCause());
        }
    }

    /** The generated layout of a C struct of the host architecture. */
    static GroupLayout struct(String name) {
        try {
            Class<?> c = Class.forName(ARCH.bindingsPackage() + "." + name);
            return (GroupLayout) c.getMethod("layout").invoke(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("generated bindings for " + ARCH + " lack struct " + name, e);
        }
    }

    /**
     * The byte offset of a (possibly nested) member, looking through anonymous unions and
     * structs as C does: {@code offset("kvm_run", "mmio", "len")}.
     */
    static long offset(String struct, String... path) {
        return resolve(struct, path).offset();
    }

    /** The layout of a (possibly nested) member; see {@link #offset}. */
    static MemoryLayout member(String struct, String... path) {
        return resolve(struct, path).layout();
    }

    private record Member(long offset, MemoryLayout layout) {}

    private static Member resolve(String struct, String... path) {
        Member m = new Member(0, struct(struct));
        for (String name : path) {
            if (!(m.layout() instanceof GroupLayout g)) {
                throw new IllegalStateException(struct + ": " + name + " is inside a non-struct member");
            }
            Member child = find(g, name);
            if (child == null) {
                throw new IllegalStateException("struct " + struct + " has no member "
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
