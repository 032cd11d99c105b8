package org.jkvm.kvm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Raw mode on a pseudo-terminal this test opens (/dev/ptmx, unlocked with TIOCSPTLCK, its slave
 * /dev/pts/N from TIOCGPTN): the flags it leaves, bytes arriving without a newline and without
 * echo, and the settings put back.
 */
@Tag("unit")
class TerminalTest {
    private static final int IFLAG = (int) HostUapi.offset(UapiStruct.termios, "c_iflag");
    private static final int OFLAG = (int) HostUapi.offset(UapiStruct.termios, "c_oflag");
    private static final int LFLAG = (int) HostUapi.offset(UapiStruct.termios, "c_lflag");
    private static final long ICANON = HostUapi.constant(UapiConstant.ICANON);
    private static final long ECHO = HostUapi.constant(UapiConstant.ECHO);
    private static final long ISIG = HostUapi.constant(UapiConstant.ISIG);
    private static final long ICRNL = HostUapi.constant(UapiConstant.ICRNL);

    private int master = -1;
    private int slave = -1;

    @BeforeEach
    void openPty() {
        assumeTrue(Files.isReadable(Path.of("/dev/ptmx")), "needs /dev/ptmx and a devpts on /dev/pts");
        master = Libc.open("/dev/ptmx", Libc.O_RDWR | Libc.O_NOCTTY | Libc.O_CLOEXEC);
        if (master < 0) throw new KvmException("open", "/dev/ptmx", Libc.errno());
        try (Arena a = Arena.ofConfined()) {
            if (Libc.ioctl(master, HostUapi.request(UapiConstant.TIOCSPTLCK), a.allocateFrom(JAVA_INT, 0)) != 0) {
                throw new KvmException("TIOCSPTLCK", "0", Libc.errno());
            }
            MemorySegment n = a.allocate(JAVA_INT);
            if (Libc.ioctl(master, HostUapi.request(UapiConstant.TIOCGPTN), n) != 0) {
                throw new KvmException("TIOCGPTN", "", Libc.errno());
            }
            String pts = "/dev/pts/" + n.get(JAVA_INT, 0);
            slave = Libc.open(pts, Libc.O_RDWR | Libc.O_NOCTTY | Libc.O_CLOEXEC);
            if (slave < 0) throw new KvmException("open", pts, Libc.errno());
        }
    }

    @AfterEach
    void closePty() {
        if (slave >= 0) Libc.close(slave);
        if (master >= 0) Libc.close(master);
    }

    @Test
    void rawModeHandsOverEachByteAtOnceAndRestores() {
        assertTrue(Terminal.isTerminal(slave));
        byte[] before = Terminal.settings(slave);
        assertTrue((flag(before, LFLAG) & ICANON) != 0, "a new pty starts in canonical mode");
        try (Terminal raw = Terminal.raw(slave)) {
            byte[] now = Terminal.settings(slave);
            assertEquals(0, flag(now, LFLAG) & (ICANON | ECHO), "no line editing, no echo");
            assertEquals(ISIG, flag(now, LFLAG) & ISIG, "Ctrl-C still signals");
            assertEquals(0, flag(now, IFLAG) & ICRNL, "CR passes as CR");
            assertEquals(flag(before, OFLAG), flag(now, OFLAG), "output flags as they were");

            write(master, "ab");
            assertEquals("ab", readWithin(slave, 5000), "read without a newline");
            write(master, "\r");
            assertEquals("\r", readWithin(slave, 5000));
            assertEquals("", readWithin(master, 200), "the terminal echoes nothing");
        }
        assertArrayEquals(before, Terminal.settings(slave), "close restores the settings");
    }

    @Test
    void devNullIsNoTerminal() {
        int fd = Libc.open("/dev/null", Libc.O_RDWR | Libc.O_CLOEXEC);
        try {
            assertFalse(Terminal.isTerminal(fd));
        } finally {
            Libc.close(fd);
        }
    }

    private static long flag(byte[] termios, int offset) {
        return Integer.toUnsignedLong(ByteBuffer.wrap(termios).order(ByteOrder.nativeOrder()).getInt(offset));
    }

    private static void write(int fd, String s) {
        try (Arena a = Arena.ofConfined()) {
            byte[] b = s.getBytes(StandardCharsets.US_ASCII);
            assertEquals(b.length, Libc.write(fd, a.allocateFrom(JAVA_BYTE, b), b.length));
        }
    }

    /** What {@code fd} has to read within {@code millis}, or "" when nothing came. */
    private static String readWithin(int fd, int millis) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment pfd = a.allocate(Libc.POLLFD_BYTES, 4);
            pfd.set(JAVA_INT, Libc.POLLFD_FD, fd);
            pfd.set(JAVA_SHORT, Libc.POLLFD_EVENTS, Libc.POLLIN);
            int ready = Libc.poll(pfd, 1, millis);
            if (ready < 0) throw new KvmException("poll", "fd " + fd, Libc.errno());
            if (ready == 0) return "";
            MemorySegment buf = a.allocate(64);
            long n = Libc.read(fd, buf, buf.byteSize());
            if (n < 0) throw new KvmException("read", "fd " + fd, Libc.errno());
            return new String(buf.asSlice(0, n).toArray(JAVA_BYTE), StandardCharsets.US_ASCII);
        }
    }
}
