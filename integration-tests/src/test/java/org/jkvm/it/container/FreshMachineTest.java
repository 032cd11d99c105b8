package org.jkvm.it.container;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.github.dockerjava.api.model.AccessMode;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.Volume;
import org.jkvm.it.arm64.Steps;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.testcontainers.containers.Container;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The README's first command on a machine that has nothing: a minimal Debian 12 made by
 * debootstrap ({@code containers/fresh-debian}: no JDK, no jkvm packages), a clean clone of
 * the commit under test, {@code ./demo} run as root with the host's network and local CA
 * certificates and no /dev/kvm, so it sets everything up itself and boots the guest inside the
 * emulated arm64 host. Then {@code ./setup --tests} there, and every tool of
 * {@code scripts/tools.list} must be installed. Only downloads are reused, read-only (Debian
 * .debs and Maven artifacts, jkvm's own artifacts left out), never built results.
 */
@Tag("fresh")
class FreshMachineTest {
    private static final String IMAGE = System.getProperty("jkvm.container.freshImage", "jkvm-fresh-debian12:latest");
    private static final Path REPO = Path.of(System.getProperty("jkvm.repo", "..")).toAbsolutePath().normalize();

    @BeforeAll
    static void engineAndImage() {
        ContainerTier.requireDockerAndImage(IMAGE, "containers/fresh-debian");
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.MINUTES)
    void theReadmesFirstCommandWorksOnAFreshDebian12(@TempDir Path tmp) throws Exception {
        Path src = tmp.resolve("src");
        Process clone = new ProcessBuilder("git", "clone", "-q", "--no-local", REPO.toString(), src.toString())
                .inheritIO().start();
        Assumptions.assumeTrue(clone.waitFor() == 0, () -> ContainerTier.skip("git clone of " + REPO + " failed (not a git checkout?)"));

        Map<Path, String> readOnly = new LinkedHashMap<>();
        readOnly.put(Path.of("/usr/local/share/ca-certificates"), "/cache/ca");
        readOnly.put(Path.of("/var/cache/apt/archives"), "/cache/apt");
        readOnly.put(Path.of(System.getProperty("user.home"), ".m2", "repository"), "/cache/m2");
        Path jkvmCache = Path.of(System.getenv().getOrDefault("JKVM_CACHE", System.getProperty("user.home") + "/.cache/jkvm"));
        for (String d : List.of("arm64-host/debs", "guest/debs", "workloads/debs")) {
            readOnly.put(jkvmCache.resolve(d), "/cache/jkvm/" + d);
        }
        List<Bind> binds = new ArrayList<>();
        binds.add(new Bind(src.toString(), new Volume("/src"), AccessMode.rw));
        readOnly.forEach((host, in) -> {
            if (Files.isDirectory(host)) binds.add(new Bind(host.toString(), new Volume(in), AccessMode.ro));
        });

        String prepare = String.join("; ",
                "set -e",
                // the registries are reached through the machine's local CAs
                "if [ -d /cache/ca ]; then cp /cache/ca/*.crt /usr/local/share/ca-certificates/ 2>/dev/null || true; update-ca-certificates >/dev/null; fi",
                "if [ -d /cache/apt ]; then find /cache/apt -maxdepth 1 -name '*.deb' -exec ln -sf {} /var/cache/apt/archives/ \\;; fi",
                "mkdir -p /root/.m2 /root/.cache/jkvm",
                "if [ -d /cache/m2 ]; then cp -a /cache/m2 /root/.m2/repository; rm -rf /root/.m2/repository/org/jkvm; fi",
                "for d in arm64-host guest workloads; do if [ -d /cache/jkvm/$d/debs ]; then mkdir -p /root/.cache/jkvm/$d"
                        + " && cp -a /cache/jkvm/$d/debs /root/.cache/jkvm/$d/; fi; done");
        Steps steps = new Steps()
                .step("before", "command -v java || echo no-java; ls /usr/lib/jvm 2>/dev/null | wc -l; test -e /dev/kvm && echo kvm || echo no-kvm")
                .step("demo", "cd /src && s=$(date +%s) && ./demo; rc=$?; echo \"demo took $(( $(date +%s) - s )) s\"; exit $rc")
                .step("tests-setup", "cd /src && ./setup --tests && scripts/tools.sh check tests");

        try (GenericContainer<?> c = new GenericContainer<>(DockerImageName.parse(IMAGE))
                .withCommand("sleep", "7200")
                .withCreateContainerCmdModifier(cmd -> {
                    cmd.withUser("0:0");
                    cmd.getHostConfig().withNetworkMode("host").withBinds(binds);
                })
                .withStartupTimeout(Duration.ofSeconds(60))) {
            c.start();
            Container.ExecResult prep = c.execInContainer("bash", "-c", prepare);
            assertEquals(0, prep.getExitCode(), prep.getStdout() + prep.getStderr());
            long t0 = System.nanoTime();
            Container.ExecResult r = c.execInContainer("bash", "-c", steps.script());
            System.err.printf("fresh tier: ./demo and ./setup --tests in a fresh Debian 12 took %d s%n",
                    (System.nanoTime() - t0) / 1_000_000_000L);
            Map<String, Steps.Step> out = Steps.parse(r.getStdout());

            Steps.Step before = Steps.require(out, "before");
            assertTrue(before.output().contains("no-java") && before.output().contains("no-kvm"),
                    "the image must start with no Java and no /dev/kvm:\n" + before.output());

            Steps.Step demo = Steps.require(out, "demo");
            System.err.println(demo.output());
            assertEquals(0, demo.exitCode(), "./demo failed on a fresh machine:\n" + demo.output() + r.getStderr());
            assertTrue(demo.output().contains("booting the guest with jkvm inside the emulated arm64 host"), demo.output());
            assertTrue(demo.output().contains("JKVM-GUEST-READY cpus=2"), "the guest's console marker:\n" + demo.output());
            assertTrue(demo.output().contains("jkvm: the guest powered off"), demo.output());

            Steps.Step tests = Steps.require(out, "tests-setup");
            assertEquals(0, tests.exitCode(), "./setup --tests left tools out:\n" + tests.output());
            assertTrue(tests.output().contains("tools: everything tests needs is installed"), tests.output());
        }
    }
}
