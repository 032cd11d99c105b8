package org.jkvm.it.container;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.jkvm.it.arm64.GuestFixture;
import org.jkvm.it.arm64.Steps;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.testcontainers.containers.Container.ExecResult;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.MountableFile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The emulated arm64 host started inside a container without /dev/kvm (QEMU's TCG needs none),
 * from the {@code jkvm-arm64-host} image, running jkvm on the arm64 KVM it offers: caps, and a
 * Linux guest booted on 2 vCPUs. The host's pieces come from the arm64 tier's cache
 * ({@code arm64-host/assemble}), mounted read-only; {@code arm64-host/run} is the repo's own.
 */
@Tag("container")
@Timeout(value = 15, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class EmulatedArm64HostInContainerTest {
    private static final String SCRIPTS = "/opt/jkvm/arm64-host";
    private static final String CACHE = "/cache";
    private static final String GUEST = "/opt/jkvm/guest";
    private static final String MARKER = "hello-from-the-container";

    @BeforeEach
    void requireTheTier() {
        ContainerTier.requireDockerAndImage(ContainerTier.ARM64_HOST_IMAGE, "containers/build --with-arm64-host");
        ContainerTier.jkvmJar();
    }

    @Test
    void jkvmRunsOnArm64KvmInsideTheEmulatedHostInsideAContainer() throws Exception {
        Path scripts = ContainerTier.hostFile("jkvm.repo", "run the tests through Maven").resolve("arm64-host");
        Path hostCache = cacheRoot().resolve("arm64-host");
        Assumptions.assumeTrue(Files.exists(hostCache.resolve("current/ok")),
                () -> ContainerTier.skip("the emulated host is not assembled in " + hostCache + ": run arm64-host/assemble"));
        List<Path> guest = GuestFixture.filesOrSkip();

        try (GenericContainer<?> c = ContainerTier.container(ContainerTier.ARM64_HOST_IMAGE, false,
                        Map.of(scripts, SCRIPTS, hostCache, CACHE + "/arm64-host"))
                .withCopyFileToContainer(MountableFile.forHostPath(guest.get(0), 0644), GUEST + "/Image")
                .withCopyFileToContainer(MountableFile.forHostPath(guest.get(1), 0644), GUEST + "/initramfs.cpio.gz")
                .withEnv("JKVM_CACHE", CACHE)) {
            c.start();
            assertEquals(1, c.execInContainer("test", "-e", "/dev/kvm").getExitCode(), "the container must have no /dev/kvm");

            String steps = new Steps()
                    .step("caps", "java -jar jkvm.jar caps --json")
                    .step("guest", GuestFixture.jkvmRun("--cpus 2 --memory 256M --timeout 300",
                            GuestFixture.command("echo " + MARKER)))
                    .script();
            ExecResult r = c.execInContainer(SCRIPTS + "/run", "--timeout", "600", "--file", ContainerTier.JAR_IN_CONTAINER,
                    "--file", GUEST + "/Image", "--file", GUEST + "/initramfs.cpio.gz", "--", "sh", "-c", steps);
            String out = r.getStdout() + r.getStderr();
            assertEquals(0, r.getExitCode(), () -> "arm64-host/run in the container:\n" + out);

            Map<String, Steps.Step> s = Steps.parse(r.getStdout());
            Steps.Step caps = Steps.require(s, "caps");
            assertEquals(0, caps.exitCode(), caps.output());
            assertTrue(caps.output().contains("\"arch\": \"aarch64\""), caps.output());
            assertTrue(caps.output().contains("\"kvm\": \"VHE\""), caps.output());
            assertTrue(caps.output().contains("\"smccc_filter\": true"), caps.output());

            Steps.Step boot = Steps.require(s, "guest");
            assertEquals(0, boot.exitCode(), boot.output());
            assertTrue(boot.output().contains("JKVM-GUEST-READY cpus=2 "), boot.output());
            assertTrue(boot.output().contains(MARKER), boot.output());
        }
    }

    /** The cache the repo's scripts use: {@code $JKVM_CACHE}, else ~/.cache/jkvm. */
    private static Path cacheRoot() {
        String env = System.getenv("JKVM_CACHE");
        return env != null && !env.isEmpty() ? Path.of(env) : Path.of(System.getProperty("user.home"), ".cache", "jkvm");
    }
}
