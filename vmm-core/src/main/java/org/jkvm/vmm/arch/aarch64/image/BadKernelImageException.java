package org.jkvm.vmm.arch.aarch64.image;

import java.util.Objects;

/**
 * A kernel image jkvm cannot boot. The message names the file, the problem and the fix, in
 * the form {@code "kernel image <source>: <problem>. <fix>"}; {@link #reason()} lets callers
 * and tests tell the cases apart without matching text.
 */
public final class BadKernelImageException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** What is wrong with the image. */
    public enum Reason {
        /** The file is missing, a directory, or cannot be read. */
        UNREADABLE,
        /** No "ARM\x64" magic at offset 56: an x86 bzImage, an ELF vmlinux, random data... */
        NOT_ARM64_IMAGE,
        /** Shorter than the 64-byte header, or than the header says, or a cut-off gzip stream. */
        TRUNCATED,
        /** A gzip stream that does not decompress. */
        BAD_GZIP,
        /** Header flag bit 0: a big-endian kernel. */
        BIG_ENDIAN,
        /** A header field that no real kernel has (text_offset not 4 KiB-aligned or >= 2 MiB). */
        BAD_HEADER,
        /** Larger than the size cap (compressed or decompressed). */
        TOO_LARGE,
        /** The image does not fit in the guest RAM it was checked against. */
        DOES_NOT_FIT_RAM,
    }

    private final String source;
    private final Reason reason;

    public BadKernelImageException(String source, Reason reason, String problem, String fix) {
        super("kernel image " + source + ": " + problem + ". " + fix);
        this.source = Objects.requireNonNull(source);
        this.reason = Objects.requireNonNull(reason);
    }

    BadKernelImageException(String source, Reason reason, String problem, String fix, Throwable cause) {
        this(source, reason, problem, fix);
        initCause(cause);
    }

    /** The file (or other name) the image came from. */
    public String source() {
        return source;
    }

    public Reason reason() {
        return reason;
    }
}
