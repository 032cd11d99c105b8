package org.jkvm.it.arm64;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;

/**
 * Runs commands inside the emulated arm64 host ({@code arm64-host/run}: QEMU TCG with EL2,
 * Debian's arm64 kernel with KVM, an arm64 JDK 25) with the freshly built jkvm jar in its
 * working directory, {@code /payload}, and that jar's AOT cache ({@link AotCache}).
 */
final class EmulatedArm64Host {
    private EmulatedArm64Host() {}

    /** What a command printed (stdout and stderr merged, as on a serial console) and its status. */
    record Result(int exitCode, String output) {}

    static Path repo() {
        return Path.of(System.getProperty("jkvm.repo", "..")).toAbsolutePath().normalize();
    }

    /** Skips the calling test, saying what is missing, unless the host can be started. */
    static void requireOrSkip() {
        Path run = repo().resolve("arm64-host/run");
        Path jar = repo().resolve("cli/target/jkvm.jar");
        Assumptions.assumeTrue(Files.isExecutable(run), () -> skip(run + " is missing"));
        Assumptions.assumeTrue(Files.isRegularFile(jar), () -> skip(jar + " is not built: run ./setup"));
        Assumptions.assumeTrue(onPath("qemu-system-aarch64"),
                () -> skip("no qemu-system-aarch64: run arm64-host/assemble (as root; ./test does)"));
    }

    /** Boots the host with extra kernel arguments, runs {@code command} in it, stops it. */
    static Result run(String kernelAppend, Duration timeout, String command) throws IOException, InterruptedException {
        return run(kernelAppend, timeout, command, List.of());
    }

    /**
     * As {@link #run(String, Duration, String)}, with more files in {@code /payload} (the
     * working directory) beside {@code jkvm.jar}.
     */
    static Result run(String kernelAppend, Duration timeout, String command, List<Path> files)
            throws IOException, InterruptedException {
        return run(null, kernelAppend, timeout, command, files);
    }

    /** As {@link #run(String, Duration, String, List)}, with the host booted from {@code hostKernel}. */
    static Result runWithKernel(String hostKernel, Duration timeout, String command, List<Path> files)
            throws IOException, InterruptedException {
        return run(hostKernel, "", timeout, command, files);
    }

    private static Result run(String hostKernel, String kernelAppend, Duration timeout, String command, List<Path> files)
            throws IOException, InterruptedException {
        Path payload = Files.createTempDirectory("jkvm-arm64-payload");
        try {
            Path jar = repo().resolve("cli/target/jkvm.jar");
            // with its time: the AOT cache holds the jar's, and the JVM checks it
            Files.copy(jar, payload.resolve("jkvm.jar"), StandardCopyOption.COPY_ATTRIBUTES);
            for (Path f : files) Files.copy(f, payload.resolve(f.getFileName()));
            List<String> argv = new ArrayList<>(List.of(repo().resolve("arm64-host/run").toString(),
                    "--payload", payload.toString(), "--timeout", Long.toString(timeout.toSeconds())));
            AotCache.forJar(jar).ifPresent(aot -> argv.addAll(List.of("--aot-cache", aot.toString())));
            if (hostKernel != null) argv.addAll(List.of("--kernel", hostKernel));
            if (!kernelAppend.isEmpty()) argv.addAll(List.of("--kernel-append", kernelAppend));
            argv.addAll(List.of("--", "sh", "-c", command));
            Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(30, TimeUnit.SECONDS)) p.destroyForcibly();
            return new Result(p.exitValue(), out);
        } finally {
            try (var left = Files.list(payload)) {
                for (Path f : left.toList()) Files.delete(f);
            }
            Files.delete(payload);
        }
    }

    private static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) return true;
        }
        return false;
    }

    private static String skip(String why) {
        String msg = "arm64 tier skipped: " + why;
        System.err.println(msg);
        return msg;
    }
}
