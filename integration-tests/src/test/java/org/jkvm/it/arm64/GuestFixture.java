package org.jkvm.it.arm64;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;

/**
 * The arm64 test guest from {@code guest/build}: Debian's 6.12 Image and a busybox initramfs
 * whose /init prints {@code JKVM-GUEST-READY cpus=N}, runs {@code jkvm.cmd=<base64>} and
 * powers off.
 */
public final class GuestFixture {
    private GuestFixture() {}

    /** The kernel and the initramfs, or a skip naming the command that makes them. */
    public static List<Path> filesOrSkip() throws IOException, InterruptedException {
        Path build = EmulatedArm64Host.repo().resolve("guest/build");
        Process p = new ProcessBuilder(build.toString(), "--quiet").redirectErrorStream(false).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        boolean done = p.waitFor(10, TimeUnit.MINUTES);
        Assumptions.assumeTrue(done && p.exitValue() == 0,
                () -> "arm64 tier skipped: guest/build failed (run it as root to see why)");
        return List.of(Path.of(value(out, "JKVM_GUEST_IMAGE")), Path.of(value(out, "JKVM_GUEST_INITRD")));
    }

    private static String value(String out, String key) {
        for (String line : out.split("\n")) {
            if (line.startsWith(key + "=")) return line.substring(key.length() + 1).replace("'", "");
        }
        throw new IllegalStateException("guest/build printed no " + key + ":\n" + out);
    }

    /** The kernel argument that makes /init run {@code shellCommand}. */
    public static String command(String shellCommand) {
        return "jkvm.cmd=" + Base64.getEncoder().encodeToString(shellCommand.getBytes(StandardCharsets.UTF_8));
    }

    /** {@code jkvm run} of the fixture with {@code options} and the kernel command line {@code cmdline}. */
    public static String jkvmRun(String options, String cmdline) {
        return "java -jar jkvm.jar run --kernel Image --initrd initramfs.cpio.gz " + options
                + " --cmdline 'console=ttyS0 panic=-1 quiet " + cmdline + "'";
    }
}
