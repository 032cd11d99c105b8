package org.jkvm.it.arm64;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Assumptions;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** Runs one of the repository's build scripts and reads the {@code KEY=value} line it prints. */
final class BuildScript {
    private BuildScript() {}

    /** The project's own 6.12 kernel with the PV-lock series ({@code kernel/build --with-pvlock}): its Image. */
    static Path projectKernel() throws Exception {
        return Path.of(output("kernel/build", "JKVM_KERNEL_IMAGE", "--with-pvlock", "--quiet"));
    }

    /** The Debian arm64 root file system image ({@code guest/debian-rootfs/build}). */
    static Path debianRootfs() throws Exception {
        return Path.of(output("guest/debian-rootfs/build", "JKVM_DEBIAN_ROOTFS", "--quiet"));
    }

    /**
     * The value of {@code key} that {@code script} (a path in the repository) prints, or a skip
     * naming the script when it fails (it is run as the ./test command runs it, so a failure here
     * means a machine that was not set up).
     */
    static String output(String script, String key, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(EmulatedArm64Host.repo().resolve(script).toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        Assumptions.assumeTrue(p.waitFor(90, TimeUnit.MINUTES) && p.exitValue() == 0,
                "arm64 tier skipped: " + script + " failed (run it as root to see why)");
        Matcher m = Pattern.compile(key + "=(\\S+)").matcher(out);
        assertTrue(m.find(), script + " printed no " + key + ":\n" + out);
        return m.group(1).replace("'", "");
    }
}
