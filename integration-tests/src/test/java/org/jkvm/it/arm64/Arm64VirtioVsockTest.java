package org.jkvm.it.arm64;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * virtio-vsock and virtio-rng end to end in the emulated host, on the project's 6.12 Image
 * (kernel/build; VIRTIO_VSOCKETS and HW_RANDOM_VIRTIO built in) with guest/vsock's initramfs
 * (guest/build's and the static {@code jkvm-vsock}). One {@code jkvm run --vsock --rng}: a host
 * program ({@link VsockPeer} client) reaches the guest's echo listener on port 5000 through
 * {@code CONNECT 5000} on jkvm's Unix socket, twice (64-byte round trips, then 64 KiB ones:
 * more than a receive buffer of the guest's, so the credit has to come back); the guest connects
 * to CID 2 port 5001, which jkvm relays to the Unix socket {@code PATH_5001} where a
 * {@link VsockPeer} echo server answers, again twice; and the guest reads 64 KiB from
 * /dev/hwrng, which must be virtio's and not all one byte value.
 */
@Tag("arm64")
class Arm64VirtioVsockTest {
    private static final String SOCKET = "/tmp/jkvm-vsock.sock";
    private static final String PEER = "java -XX:+UseSerialGC -cp peer.jar " + VsockPeer.class.getName();
    /** The guest: entropy first, then its listener in the background and its own connections. */
    private static final String GUEST = "echo rng_current=$(cat /sys/class/misc/hw_random/rng_current);"
            + " head -c 65536 /dev/hwrng > /hwrng.bin; echo rng_bytes=$(wc -c < /hwrng.bin)"
            + " rng_distinct=$(busybox od -An -v -tu1 /hwrng.bin | tr -s ' ' '\\n' | grep -v '^$' | busybox sort -u | wc -l);"
            + " jkvm-vsock listen 5000 2 & l=$!;"
            + " jkvm-vsock connect 2 5001 64 200 && jkvm-vsock connect 2 5001 65536 16; c=$?;"
            + " wait $l; echo guest_connect=$c guest_listen=$?";
    /**
     * The two peers in the background, jkvm, then the peers' output; a peer still running a few
     * seconds after jkvm ended is stopped (its output then lacks its lines).
     */
    private static final String HOST = "rm -f " + SOCKET + "*; "
            + PEER + " serve " + SOCKET + "_5001 2 > serve.out 2>&1 & s=$!; "
            + PEER + " client " + SOCKET + " 5000 64 200 65536 16 > client.out 2>&1 & c=$!; "
            + GuestFixture.jkvmRun("--memory 256M --timeout 600 --rng --vsock " + SOCKET, GuestFixture.command(GUEST))
            + "; rc=$?; for i in $(seq 50); do kill -0 $c 2>/dev/null || kill -0 $s 2>/dev/null || break; sleep 0.2; done;"
            + " kill $c $s 2>/dev/null; wait $c; crc=$?; wait $s; src=$?;"
            + " cat serve.out client.out; echo PEERS client=$crc serve=$src; ls -l " + SOCKET + " 2>&1; exit $rc";
    private static final Pattern GUEST_RT = Pattern.compile("VSOCK-CONNECT .*size=(\\d+) rounds=(\\d+) bytes=(\\d+) us_per_round=(\\d+)");
    private static final Pattern HOST_RT = Pattern.compile("PEER-CLIENT ok=OK_(\\d+) size=(\\d+) rounds=(\\d+) bytes=(\\d+) us_per_round=(\\d+)");

    @Test
    void hostAndGuestEchoOverVsockAndTheGuestReadsVirtioEntropy(@TempDir Path tmp) throws Exception {
        EmulatedArm64Host.requireOrSkip();
        Path kernel = BuildScript.projectKernel();
        Path initrd = Path.of(BuildScript.output("guest/vsock/build", "JKVM_VSOCK_INITRD", "--quiet"));
        Path peer = TestClassesJar.of(tmp.resolve("peer.jar"), VsockPeer.class);
        EmulatedArm64Host.Result r = EmulatedArm64Host.run("", Duration.ofMinutes(20), new Steps().step("vsock", HOST).script(),
                List.of(kernel, initrd, peer));
        Files.writeString(Path.of("target", getClass().getSimpleName() + ".out"), r.output());
        assertEquals(0, r.exitCode(), "the emulated host failed:\n" + r.output());
        Map<String, Steps.Step> steps = Steps.parse(r.output());
        String out = Steps.require(steps, "vsock").output();
        assertEquals(0, Steps.require(steps, "vsock").exitCode(), out);
        assertTrue(out.contains("JKVM-GUEST-CMD-EXIT 0"), out);

        assertTrue(out.matches("(?s).*rng_current=virtio_rng\\S*\n.*"), "the guest's hw_random is virtio's:\n" + out);
        assertTrue(out.contains("rng_bytes=65536"), out);
        Matcher distinct = Pattern.compile("rng_distinct=(\\d+)").matcher(out);
        assertTrue(distinct.find() && Integer.parseInt(distinct.group(1)) > 1, "64 KiB from /dev/hwrng, not all one value:\n" + out);

        assertTrue(out.contains("guest_connect=0 guest_listen=0"), out);
        assertTrue(out.contains("PEERS client=0 serve=0"), out);
        assertTrue(out.contains("VSOCK-LISTEN port=5000 conn=0 bytes=12800\n"), out);
        assertTrue(out.contains("VSOCK-LISTEN port=5000 conn=1 bytes=1048576\n"), out);
        assertTrue(out.contains("PEER-SERVED conn=0 bytes=12800\n"), out);
        assertTrue(out.contains("PEER-SERVED conn=1 bytes=1048576\n"), out);
        assertEquals(2, count(GUEST_RT, out), out);
        assertEquals(2, count(HOST_RT, out), out);
        assertTrue(out.contains("No such file"), "jkvm removed its socket when the run ended:\n" + out);
        System.out.println(out.lines().filter(l -> l.matches(".*(rng_|VSOCK-|PEER-|guest_connect|PEERS|CMD-EXIT).*"))
                .collect(Collectors.joining("\n")));
    }

    private static int count(Pattern p, String out) {
        return (int) p.matcher(out).results().count();
    }
}
