package org.jkvm.kvm;

import java.lang.foreign.MemorySegment;

/**
 * Finds a byte string in native memory with the C library's memmem(3). For scans of megabytes
 * that run once, early, while nothing of the JVM is compiled yet: the kernel Image's banner, 16 MB
 * into the project's arm64 Image, took the interpreter 0.47-0.51 s of CPU in the emulated arm64
 * host, CPU the booting guest shares, and memmem's search 0.13-0.16 s (bench/boot/README.md,
 * 2026-12-03); the C library's search does not wait for the JIT.
 */
public final class NativeSearch {
    private NativeSearch() {}

    /**
     * The offset of the first occurrence of {@code needle} in {@code haystack}, or -1 when there is
     * none. Both must be native segments; an empty needle is found at 0.
     */
    public static long indexOf(MemorySegment haystack, MemorySegment needle) {
        if (!haystack.isNative() || !needle.isNative()) {
            throw new IllegalArgumentException("memmem searches native memory: pass native segments, not "
                    + (haystack.isNative() ? "a heap needle" : "a heap haystack"));
        }
        if (needle.byteSize() == 0) return 0;
        long at = Libc.memmem(haystack, needle);
        return at == 0 ? -1 : at - haystack.address();
    }
}
