package org.jkvm.it.arm64;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * virtio-net end to end in the emulated host, booted on the project's 6.12 Image (kernel/build;
 * TUN, VIRTIO_NET and IP_PNP built in), which is also the guest's kernel: bench/net/inside.sh
 * makes a tap (host side 10.0.2.1/24) and boots the test initramfs with {@code --net tap=} and
 * {@code ip=10.0.2.15::10.0.2.1:255.255.255.0::eth0:off}; the guest pings the host, then 8 MiB
 * of random bytes go host to guest and another 8 MiB guest to host over TCP (busybox nc), each
 * received whole with the SHA-256 of what was sent, and without a frame the guest's driver dropped.
 * The throughput of each direction is printed.
 */
@Tag("arm64")
class Arm64VirtioNetTest {
    private static final int MIB = 8;
    private static Path kernel;
    private static Path initrd;

    @BeforeAll
    static void guest() throws Exception {
        EmulatedArm64Host.requireOrSkip();
        initrd = GuestFixture.filesOrSkip().get(1);
        kernel = BuildScript.projectKernel();
    }

    @Test
    void theGuestPingsTheHostAndMovesMebibytesEachWayOverTcp() throws Exception {
        Path script = EmulatedArm64Host.repo().resolve("bench/net/inside.sh");
        EmulatedArm64Host.Result r = EmulatedArm64Host.runWithKernel(kernel.toString(), Duration.ofMinutes(25),
                "sh inside.sh jkvm " + MIB + " 1", List.of(kernel, initrd, script));
        String out = r.output();
        assertEquals(0, r.exitCode(), "the emulated host failed:\n" + out);
        assertTrue(out.contains("NET jkvm 1 vmm-exit=0"), "jkvm ran the guest to its power-off:\n" + out);
        assertTrue(out.contains("NET jkvm 1 ping=ok"), "the guest reached the host:\n" + out);
        String bytes = Long.toString((long) MIB << 20);
        String h2gSent = value("NET h2g-sent sha256=(\\w+)", out);
        assertEquals(bytes + " " + h2gSent, value("NET jkvm 1 h2g bytes=(\\d+ sha256=\\w+)", out).replace("sha256=", ""),
                "host to guest, whole:\n" + out);
        // A frame over several receive buffers whose used entries the driver saw one at a time
        // was dropped by it ("buffers missing"), and the host's TCP retransmitted around the hole.
        assertEquals("0", value("NET jkvm 1 h2g-guest irqs=\\d+ packets=\\d+ dropped=(\\d+)", out),
                "the guest's driver dropped no received frame:\n" + out);
        String g2hSent = value("NET jkvm 1 g2h-sent sha256=(\\w+)", out);
        assertEquals(bytes + " " + g2hSent, value("NET jkvm 1 g2h bytes=(\\d+ sha256=\\w+)", out).replace("sha256=", ""),
                "guest to host, whole:\n" + out);
        System.out.println(out.lines().filter(l -> l.startsWith("NET ") || l.startsWith("INFO "))
                .map(l -> l.matches(".* secs=[0-9.]+") ? l + "  (" + mibPerSecond(l) + " MiB/s)" : l)
                .collect(Collectors.joining("\n")));
    }

    private static String mibPerSecond(String line) {
        double secs = Double.parseDouble(line.substring(line.lastIndexOf("secs=") + 5));
        return secs > 0 ? "%.2f".formatted(MIB / secs) : "-";
    }

    private static String value(String regex, String output) {
        Matcher m = Pattern.compile(regex).matcher(output);
        assertTrue(m.find(), regex + " in:\n" + output);
        return m.group(1);
    }
}
