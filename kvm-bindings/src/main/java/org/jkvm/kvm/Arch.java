package org.jkvm.kvm;

import java.util.Locale;

/** The host architectures jkvm has generated KVM bindings for. */
public enum Arch {
    /** x86_64 (amd64); its bindings live in {@code org.jkvm.kvm.sys.x86_64}. */
    X86_64,
    /** arm64 (aarch64); its bindings live in {@code org.jkvm.kvm.sys.aarch64}. */
    AARCH64;

    /** The architecture this JVM runs on, from {@code os.arch}. */
    public static Arch host() {
        return of(System.getProperty("os.arch"));
    }

    /** Maps an {@code os.arch} or {@code uname -m} name to an architecture. */
    public static Arch of(String name) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "amd64", "x86_64" -> X86_64;
            case "aarch64", "arm64" -> AARCH64;
            default -> throw new IllegalStateException(
                    "jkvm runs on x86_64 and arm64 hosts; this one is " + name);
        };
    }
}
