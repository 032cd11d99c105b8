package org.jkvm.it.arm64;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Debian arm64 image (guest/debian-rootfs/build) booted to a console login in the emulated
 * host, on a tap with the kernel's {@code ip=} autoconfiguration: jkvm-init's {@code jkvm.login}
 * runs Debian's agetty on ttyS0, and jkvm's stdin (a fifo here) is the console's input. A wrong
 * password is refused, root's documented one logs in; the shell prints a marker only its own
 * arithmetic makes (so the echo of the typed line cannot pass), pings the host's end of the tap
 * with Debian's ping, and logs out, which powers the guest off.
 */
@Tag("arm64")
class Arm64DebianLoginTest {
    /**
     * Waits (up to 10 minutes, while jkvm runs) until N lines of jkvm's output match a pattern;
     * then types the answers into the fifo that is jkvm's stdin.
     */
    private static final String SESSION = String.join("\n",
            "tunctl -t jkvmtap0 >/dev/null && ip addr add 10.0.2.1/24 dev jkvmtap0 && ip link set jkvmtap0 up || exit 1",
            "mkfifo in",
            "java -jar jkvm.jar run --kernel Image --memory 256M --timeout 900 --disk debian-arm64.ext4 --net tap=jkvmtap0"
                    + " --cmdline 'console=ttyS0 panic=-1 quiet root=/dev/vda rw rootfstype=ext4 init=/sbin/jkvm-init jkvm.login"
                    + " ip=10.0.2.15::10.0.2.1:255.255.255.0::eth0:off' <in >out 2>&1 &",
            "j=$!",
            "exec 3>in",
            "upto() { n=0; while [ \"$(grep -c \"$1\" out)\" -lt \"$2\" ]; do"
                    + " n=$((n + 1)); [ $n -le 600 ] && kill -0 $j 2>/dev/null || { echo \"TIMED-OUT waiting for $1\"; return 1; }; sleep 1; done; }",
            "upto 'login: ' 1 && echo root >&3 && upto 'Password: ' 1 && echo wrong-password >&3"
                    + " && upto 'Login incorrect' 1 && upto 'login: ' 2 && echo root >&3 && upto 'Password: ' 2 && echo jkvm >&3"
                    + " && upto '# $' 1"
                    + " && echo 'echo LOGIN-AS-$(id -un)-$((6 * 7)); ping -c 3 -W 5 10.0.2.1 && echo PING-OK-$((2 * 3)); exit' >&3",
            "wait $j; rc=$?",
            "exec 3>&-",
            "cat out",
            "exit $rc");
    private static Path kernel;
    private static Path debian;

    @BeforeAll
    static void guest() throws Exception {
        EmulatedArm64Host.requireOrSkip();
        kernel = BuildScript.projectKernel();
        debian = BuildScript.debianRootfs();
    }

    @Test
    void rootLogsInOnTheSerialConsoleThroughStdinAndPingsTheHostOverTheTap() throws Exception {
        EmulatedArm64Host.Result r = EmulatedArm64Host.runWithKernel(kernel.toString(), Duration.ofMinutes(25),
                new Steps().step("login", SESSION).script(), List.of(kernel, debian));
        assertEquals(0, r.exitCode(), "the emulated host failed:\n" + r.output());
        Map<String, Steps.Step> steps = Steps.parse(r.output());
        Steps.Step s = Steps.require(steps, "login");
        String out = s.output();
        System.out.println(out.lines().filter(l -> l.matches(".*(GUEST-READY|login:|Password|incorrect|LOGIN-AS|PING|packets|TIMED).*"))
                .collect(Collectors.joining("\n")));
        assertEquals(0, s.exitCode(), "jkvm ran the guest to its power-off after the logout:\n" + out);
        assertTrue(out.matches("(?s).*JKVM-GUEST-READY cpus=1 kernel=6\\.12\\.\\S+ debian=13\\.\\d+.*"), out);
        assertTrue(out.contains("jkvm-debian login: "), "agetty's prompt with the image's hostname:\n" + out);
        assertTrue(out.contains("Login incorrect"), "a wrong password is refused:\n" + out);
        assertTrue(out.contains("LOGIN-AS-root-42"), "root's shell ran the typed command:\n" + out);
        assertTrue(out.contains("3 packets transmitted, 3 received") && out.contains("PING-OK-6"),
                "the Debian system reached the host through the tap:\n" + out);
    }
}
