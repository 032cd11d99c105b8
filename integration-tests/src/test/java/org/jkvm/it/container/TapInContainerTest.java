package org.jkvm.it.container;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.github.dockerjava.api.model.Capability;
import com.github.dockerjava.api.model.Device;
import org.jkvm.kvm.Tap;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.testcontainers.containers.Container.ExecResult;
import org.testcontainers.containers.GenericContainer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * virtio-net's tap backend inside a container: without /dev/net/tun, then with it but without
 * CAP_NET_ADMIN, each refused with what to pass to Docker; with both, a tap made in the
 * container's own network namespace, with every offload the tun driver takes. kvm-bindings'
 * {@code TapProbe} opens it as {@code jkvm run --net tap=NAME} does.
 */
@Tag("container")
class TapInContainerTest {
    private static final String PROBE = "org.jkvm.kvm.TapProbe";
    private static final Path TUN = Path.of("/dev/net/tun");

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aTapInAContainerNeedsTheTunDeviceAndTheCapabilityAndSaysSo() throws Exception {
        ContainerTier.requireDockerAndImage();
        Path testClasses = ContainerTier.testClassesWith("jkvm.container.kvmBindings", "kvm-bindings", PROBE);
        Assumptions.assumeTrue(Files.exists(TUN), () -> ContainerTier.skip("this host has no " + TUN + " to pass in"));

        String none = probe(testClasses, false, false);
        assertTrue(none.startsWith("error open(/dev/net/tun): ENOENT") && none.contains("--device /dev/net/tun"), none);

        String deviceOnly = probe(testClasses, true, false);
        assertTrue(deviceOnly.startsWith("error TUNSETIFF(") && deviceOnly.contains("EPERM")
                && deviceOnly.contains("--cap-add NET_ADMIN"), deviceOnly);

        String both = probe(testClasses, true, true);
        assertEquals("tap jkvmt0 offloads " + EnumSet.allOf(Tap.Offload.class), both);
    }

    /** The probe's output in a fresh container given /dev/net/tun and CAP_NET_ADMIN as asked. */
    private static String probe(Path testClasses, boolean device, boolean netAdmin) throws Exception {
        try (GenericContainer<?> c = ContainerTier.withProbeClasses(ContainerTier.container(false), testClasses)
                .withCreateContainerCmdModifier(cmd -> {
                    if (device) cmd.getHostConfig().withDevices(List.of(new Device("rwm", TUN.toString(), TUN.toString())));
                    if (netAdmin) cmd.getHostConfig().withCapAdd(Capability.NET_ADMIN);
                })) {
            c.start();
            ExecResult r = ContainerTier.runProbe(c, PROBE, "jkvmt0");
            String out = r.getStdout() + r.getStderr();
            System.out.println("tap probe, device " + device + ", NET_ADMIN " + netAdmin + ":\n" + out);
            assertEquals(device && netAdmin ? 0 : 1, r.getExitCode(), out);
            return out.lines().filter(l -> l.startsWith("error ") || l.startsWith("tap ")).findFirst().orElse(out);
        }
    }
}
