package org.jkvm.it.arm64;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Debian arm64 image (guest/debian-rootfs/build) booted by jkvm in the emulated host, three
 * times in one boot of it. On ttyS0, on a tap with the kernel's {@code ip=} autoconfiguration:
 * jkvm-init's {@code jkvm.login} runs Debian's agetty on the console, and jkvm's stdin (a fifo
 * here) is the console's input. A wrong password is refused, root's documented one logs in; the
 * shell prints a marker only its own arithmetic makes (so the echo of the typed line cannot pass),
 * shows eth0's address with iproute2's ip, pings the host's end of the tap with Debian's ping, and
 * logs out, which powers the guest off. On hvc0 (console=hvc0, --virtio-console): the same login
 * through the virtio-console's receive queue. With a command ({@code jkvm.cmd}): the init prints
 * the guest's counters over it after its exit line.
 */
@Tag("arm64")
class Arm64DebianLoginTest {
    /**
     * Waits (up to 10 minutes, while jkvm runs) until N lines of jkvm's output match a pattern;
     * then the step types the answers into the fifo that is jkvm's stdin.
     */
    private static final String UPTO = "upto() { n=0; while [ \"$(grep -c \"$1\" out)\" -lt \"$2\" ]; do"
            + " n=$((n + 1)); [ $n -le 600 ] && kill -0 $j 2>/dev/null || { echo \"TIMED-OUT waiting for $1\"; return 1; }; sleep 1; done; }";
    private static final String BOOT = "panic=-1 quiet root=/dev/vda rw rootfstype=ext4 init=/sbin/jkvm-init";
    private static final String COMMAND = "stress-ng --cpu 1 --timeout 2s --metrics-brief";
    private static Map<String, Steps.Step> steps;

    /** jkvm with {@code options} and {@code cmdline} on the image, its stdin a fifo that {@code dialogue} writes to (fd 3). */
    private static String session(String options, String cmdline, String dialogue) {
        return String.join("\n",
                "rm -f in out && mkfifo in",
                "java -jar jkvm.jar run --kernel Image --memory 256M --timeout 900 --disk debian-arm64.ext4 " + options
                        + " --cmdline '" + cmdline + "' <in >out 2>&1 &",
                "j=$!",
                "exec 3>in",
                UPTO,
                dialogue,
                "wait $j; rc=$?",
                "exec 3>&-",
                "cat out",
                "exit $rc");
    }

    @BeforeAll
    static void boot() throws Exception {
        EmulatedArm64Host.requireOrSkip();
        Path kernel = BuildScript.projectKernel();
        Path debian = BuildScript.debianRootfs();
        String command = Base64.getEncoder().encodeToString(COMMAND.getBytes(StandardCharsets.UTF_8));
        String script = new Steps()
                .step("login", "tunctl -t jkvmtap0 >/dev/null && ip addr add 10.0.2.1/24 dev jkvmtap0 && ip link set jkvmtap0 up || exit 1\n"
                        + session("--net tap=jkvmtap0", "console=ttyS0 " + BOOT + " jkvm.login ip=10.0.2.15::10.0.2.1:255.255.255.0::eth0:off",
                        "upto 'login: ' 1 && echo root >&3 && upto 'Password: ' 1 && echo wrong-password >&3"
                                + " && upto 'Login incorrect' 1 && upto 'login: ' 2 && echo root >&3 && upto 'Password: ' 2 && echo jkvm >&3"
                                + " && upto '# $' 1"
                                + " && echo 'echo LOGIN-AS-$(id -un)-$((6 * 7)); ip -br addr; ping -c 3 -W 5 10.0.2.1 && echo PING-OK-$((2 * 3)); exit' >&3"))
                .step("hvc0", session("--virtio-console", "console=hvc0 " + BOOT + " jkvm.login",
                        "upto 'login: ' 1 && echo root >&3 && upto 'Password: ' 1 && echo jkvm >&3"
                                + " && upto '# $' 1 && echo 'echo LOGIN-AS-$(id -un)-$((6 * 7))-ON-$(tty); exit' >&3"))
                .step("command", session("", "console=ttyS0 " + BOOT + " jkvm.cmd=" + command, ":"))
                .script();
        EmulatedArm64Host.Result r = EmulatedArm64Host.runWithKernel(kernel.toString(), Duration.ofMinutes(40), script,
                List.of(kernel, debian));
        assertEquals(0, r.exitCode(), "the emulated host failed:\n" + r.output());
        steps = Steps.parse(r.output());
    }

    /** Step {@code name}'s output, its excerpt printed, after checking that jkvm ran the guest to its power-off. */
    private static String ranToPowerOff(String name) {
        Steps.Step s = Steps.require(steps, name);
        String out = s.output();
        System.out.println(name + ":\n" + out.lines()
                .filter(l -> l.matches(".*(GUEST|login:|Password|incorrect|LOGIN-AS|eth0|PING|packets|bogo|TIMED).*"))
                .collect(Collectors.joining("\n")));
        assertEquals(0, s.exitCode(), "jkvm ran the guest to its power-off:\n" + out);
        assertTrue(out.matches("(?s).*JKVM-GUEST-READY cpus=1 kernel=6\\.12\\.\\S+ debian=13\\.\\d+.*"), out);
        return out;
    }

    @Test
    void rootLogsInOnTheSerialConsoleThroughStdinAndPingsTheHostOverTheTap() {
        String out = ranToPowerOff("login");
        assertTrue(out.contains("jkvm-debian login: "), "agetty's prompt with the image's hostname:\n" + out);
        assertTrue(out.contains("Login incorrect"), "a wrong password is refused:\n" + out);
        assertTrue(out.contains("LOGIN-AS-root-42"), "root's shell ran the typed command:\n" + out);
        String plain = out.replaceAll("\\x1B\\[[0-9;]*m", ""); // ip colours its fields on a terminal
        assertTrue(plain.matches("(?s).*\\neth0 +UP +10\\.0\\.2\\.15/24\\b.*"), "ip shows eth0 with ip='s address:\n" + out);
        assertTrue(out.contains("3 packets transmitted, 3 received") && out.contains("PING-OK-6"),
                "the Debian system reached the host through the tap:\n" + out);
    }

    @Test
    void rootLogsInOnHvc0ThroughStdin() {
        String out = ranToPowerOff("hvc0");
        assertTrue(out.contains("jkvm-debian login: "), "agetty's prompt on hvc0:\n" + out);
        assertTrue(out.contains("LOGIN-AS-root-42-ON-/dev/hvc0"), "root's shell on hvc0 ran the typed command:\n" + out);
    }

    @Test
    void aCommandIsFollowedByTheGuestsCountersOverIt() {
        String out = ranToPowerOff("command");
        assertTrue(out.matches("(?s).*JKVM-GUEST-CMD-EXIT 0\\nJKVM-GUEST-STATS start \\{\"uptime_cs\":\\d+,\"cpu\":\\[[^\\n]*\\}\\n"
                + "JKVM-GUEST-STATS end \\{\"uptime_cs\":\\d+,\"cpu\":\\[[^\\n]*\\}\\n.*"), "the counters' lines after the exit line:\n" + out);
    }
}
