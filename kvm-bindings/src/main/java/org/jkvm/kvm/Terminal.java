package org.jkvm.kvm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * A terminal's line settings (the kernel's struct termios, read with TCGETS and written with
 * TCSETS), and raw mode for a serial console: {@link #raw} turns off line editing, echo and the
 * input translations (CR to NL, XON/XOFF flow control, ...) so every key reaches the guest at once
 * and only the guest echoes it, but keeps ISIG, so Ctrl-C still signals this process, and the output
 * flags, so what the guest prints looks as it did. {@link #close} puts the saved settings back.
 */
public final class Terminal implements AutoCloseable {
    private static final long TCGETS = HostUapi.request(UapiConstant.TCGETS);
    private static final long TCSETS = HostUapi.request(UapiConstant.TCSETS);
    private static final long TERMIOS_BYTES = HostUapi.struct(UapiStruct.termios).byteSize();
    private static final long IFLAG = HostUapi.offset(UapiStruct.termios, "c_iflag");
    private static final long LFLAG = HostUapi.offset(UapiStruct.termios, "c_lflag");
    private static final long CC = HostUapi.offset(UapiStruct.termios, "c_cc");
    private static final int RAW_IFLAG_OFF = (int) (HostUapi.constant(UapiConstant.IGNBRK)
            | HostUapi.constant(UapiConstant.BRKINT) | HostUapi.constant(UapiConstant.PARMRK)
            | HostUapi.constant(UapiConstant.ISTRIP) | HostUapi.constant(UapiConstant.INLCR)
            | HostUapi.constant(UapiConstant.IGNCR) | HostUapi.constant(UapiConstant.ICRNL)
            | HostUapi.constant(UapiConstant.IXON));
    private static final int RAW_LFLAG_OFF = (int) (HostUapi.constant(UapiConstant.ECHO)
            | HostUapi.constant(UapiConstant.ECHONL) | HostUapi.constant(UapiConstant.ICANON)
            | HostUapi.constant(UapiConstant.IEXTEN));
    private static final long VMIN = CC + HostUapi.constant(UapiConstant.VMIN);
    private static final long VTIME = CC + HostUapi.constant(UapiConstant.VTIME);

    private final int fd;
    private final byte[] saved;
    private final AtomicBoolean restored = new AtomicBoolean();

    private Terminal(int fd, byte[] saved) {
        this.fd = fd;
        this.saved = saved;
    }

    /** Whether {@code fd} is a terminal: TCGETS works on it, as for isatty(3). */
    public static boolean isTerminal(int fd) {
        try (Arena a = Arena.ofConfined()) {
            return Libc.ioctl(fd, TCGETS, a.allocate(TERMIOS_BYTES, 4)) == 0;
        }
    }

    /**
     * Puts the terminal {@code fd} into raw mode (reads return each byte as it comes: VMIN 1,
     * VTIME 0) and returns its settings from before, which {@link #close} restores.
     */
    public static Terminal raw(int fd) {
        byte[] saved = settings(fd);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment t = a.allocate(TERMIOS_BYTES, 4);
            MemorySegment.copy(saved, 0, t, JAVA_BYTE, 0, saved.length);
            t.set(JAVA_INT, IFLAG, t.get(JAVA_INT, IFLAG) & ~RAW_IFLAG_OFF);
            t.set(JAVA_INT, LFLAG, t.get(JAVA_INT, LFLAG) & ~RAW_LFLAG_OFF);
            t.set(JAVA_BYTE, VMIN, (byte) 1);
            t.set(JAVA_BYTE, VTIME, (byte) 0);
            set(fd, t, "raw mode");
        }
        return new Terminal(fd, saved);
    }

    /** The struct termios of the terminal {@code fd}, as TCGETS fills it. */
    static byte[] settings(int fd) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment t = a.allocate(TERMIOS_BYTES, 4);
            if (Libc.ioctl(fd, TCGETS, t) != 0) throw new KvmException("TCGETS", "fd " + fd, Libc.errno());
            return t.toArray(JAVA_BYTE);
        }
    }

    private static void set(int fd, MemorySegment termios, String what) {
        if (Libc.ioctl(fd, TCSETS, termios) != 0) throw new KvmException("TCSETS", "fd " + fd + ", " + what, Libc.errno());
    }

    /**
     * Restores the settings {@link #raw} found; only the first call does, so a finally block and a
     * shutdown hook may both call it. Takes effect at once (TCSETS), without waiting for output
     * to drain, so it cannot hang an exit.
     */
    @Override
    public void close() {
        if (!restored.compareAndSet(false, true)) return;
        try (Arena a = Arena.ofConfined()) {
            set(fd, a.allocateFrom(JAVA_BYTE, saved), "the saved settings");
        }
    }
}
