package org.jkvm.it.scripts;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The resolver that keeps the scripts from naming Debian package versions that expire
 * ({@code scripts/debian-newest.sh}, and {@code scripts/arm64-kernel-package.sh} on it), run
 * against a fake apt: a local flat repository whose Packages file the test rewrites, read by
 * the real apt-get and apt-cache through a private {@code APT_CONFIG}. A newer kernel appears
 * and is taken; a pinned one disappears and the pin fails naming its variable and the newest.
 */
@Tag("unit")
class DebianNewestTest {
    private static final String KERNEL = "linux-image-6.12.%d+deb12-arm64-unsigned";
    private static final Path REPO = Path.of(System.getProperty("jkvm.repo", "..")).toAbsolutePath().normalize();

    @TempDir
    Path tmp;

    @BeforeEach
    void fakeApt() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/apt-get")) && Files.isExecutable(Path.of("/usr/bin/apt-cache")),
                "unit tier: DebianNewestTest skipped: no apt-get/apt-cache (a Debian machine is needed)");
        for (String d : List.of("repo", "state/lists/partial", "cache/archives/partial", "etc/sources.list.d", "etc/preferences.d")) {
            Files.createDirectories(tmp.resolve(d));
        }
        Files.writeString(tmp.resolve("state/status"), "");
        Files.writeString(tmp.resolve("etc/sources.list"), "deb [trusted=yes allow-insecure=yes] file:" + tmp.resolve("repo") + " ./\n");
        Files.writeString(tmp.resolve("apt.conf"), String.join("\n",
                "Dir::State \"" + tmp.resolve("state") + "\";",
                "Dir::State::status \"" + tmp.resolve("state/status") + "\";",
                "Dir::Cache \"" + tmp.resolve("cache") + "\";",
                "Dir::Etc::sourcelist \"" + tmp.resolve("etc/sources.list") + "\";",
                "Dir::Etc::sourceparts \"" + tmp.resolve("etc/sources.list.d") + "\";",
                "Dir::Etc::preferences \"" + tmp.resolve("etc/preferences") + "\";",
                "Dir::Etc::preferencesparts \"" + tmp.resolve("etc/preferences.d") + "\";",
                "APT::Architecture \"amd64\";",
                "APT::Architectures { \"amd64\"; \"arm64\"; };",
                "APT::Sandbox::User \"root\";",
                "Acquire::Languages \"none\";",
                "Debug::NoLocking \"true\";", ""));
    }

    /** Rewrites the fake repository to offer exactly {@code packages} (name, version, arch) and runs apt-get update. */
    private void offer(String... packages) throws Exception {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < packages.length; i += 3) {
            sb.append("Package: ").append(packages[i]).append("\nVersion: ").append(packages[i + 1])
                    .append("\nArchitecture: ").append(packages[i + 2]).append("\nFilename: ./").append(packages[i])
                    .append(".deb\nSize: 1\nSHA256: ").append("0".repeat(64)).append("\nDescription: fake\n\n");
        }
        Files.writeString(tmp.resolve("repo/Packages"), sb.toString());
        Result r = run(Map.of(), "apt-get", "update", "-q");
        assertEquals(0, r.code(), r.output());
    }

    private record Result(int code, String stdout, String output) {}

    private Result run(Map<String, String> env, String... cmd) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("APT_CONFIG", tmp.resolve("apt.conf").toString());
        pb.environment().put("JKVM_CACHE", tmp.resolve("jkvm-cache").toString());
        pb.environment().remove("JKVM_ARM64_KERNEL_PKG");
        pb.environment().putAll(env);
        Path err = tmp.resolve("stderr");
        Process p = pb.redirectError(err.toFile()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), String.join(" ", cmd) + " did not finish");
        return new Result(p.exitValue(), out.strip(), out + Files.readString(err));
    }

    private Result kernelPackage(Map<String, String> env) throws Exception {
        return run(env, REPO.resolve("scripts/arm64-kernel-package.sh").toString());
    }

    private Result newest(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(REPO.resolve("scripts/debian-newest.sh").toString()));
        cmd.addAll(List.of(args));
        return run(Map.of(), cmd.toArray(String[]::new));
    }

    @Test
    void theNewestKernelOfTheSeriesIsTakenAndANewerOneReplacesIt() throws Exception {
        offer(KERNEL.formatted(69), "6.12.69-1", "arm64", KERNEL.formatted(117), "6.12.117-1", "arm64",
                "linux-image-6.1.0-40-arm64-unsigned", "6.1.153-1", "arm64", KERNEL.formatted(130), "6.12.130-1", "amd64");
        Result r = kernelPackage(Map.of());
        assertEquals(0, r.code(), r.output());
        assertEquals(KERNEL.formatted(117), r.stdout(), "117 > 69 by version, not by text; another series and another arch do not count");

        offer(KERNEL.formatted(117), "6.12.117-1", "arm64", KERNEL.formatted(121), "6.12.121-1", "arm64");
        r = kernelPackage(Map.of());
        assertEquals(0, r.code(), r.output());
        assertEquals(KERNEL.formatted(121), r.stdout(), "a newer kernel appeared");
    }

    @Test
    void aPinIsTakenWhileOfferedAndFailsLoudlyOnceGone() throws Exception {
        Map<String, String> pin = Map.of("JKVM_ARM64_KERNEL_PKG", KERNEL.formatted(117));
        offer(KERNEL.formatted(117), "6.12.117-1", "arm64", KERNEL.formatted(121), "6.12.121-1", "arm64");
        Result r = kernelPackage(pin);
        assertEquals(0, r.code(), r.output());
        assertEquals(KERNEL.formatted(117), r.stdout());

        offer(KERNEL.formatted(121), "6.12.121-1", "arm64");
        r = kernelPackage(pin);
        assertEquals(1, r.code(), r.output());
        assertEquals("", r.stdout(), "nothing to use on stdout");
        assertTrue(r.output().contains(KERNEL.formatted(117) + " (from JKVM_ARM64_KERNEL_PKG) is no longer offered"), r.output());
        assertTrue(r.output().contains("the newest of the series is " + KERNEL.formatted(121)), r.output());
    }

    @Test
    void versionsOfOnePackageAreComparedAsDebianVersions() throws Exception {
        offer("linux-libc-dev", "6.12.38-1", "all", "linux-libc-dev", "6.12.117-1", "all", "linux-libc-dev", "6.13.2-1", "all");
        Result r = newest("version", "linux-libc-dev", "6\\.12\\..*", "all");
        assertEquals(0, r.code(), r.output());
        assertEquals("6.12.117-1", r.stdout(), "the newest of the 6.12 series, not 6.13");

        r = newest("version", "linux-libc-dev", "6\\.14\\..*", "all");
        assertEquals(1, r.code(), r.output());
        assertTrue(r.output().contains("apt offers no version of linux-libc-dev:all matching"), r.output());
    }
}
