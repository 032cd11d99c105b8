package org.jkvm.it.container;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.Device;
import org.junit.jupiter.api.Assumptions;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.MountableFile;

/**
 * What the {@code container} tier needs, and its containers: a reachable Docker engine and the
 * local {@code jkvm-runtime} image (Debian's JRE 25 and busybox, built by
 * {@code containers/build}; nothing is pulled from a registry), jkvm's jar copied in, run as
 * root, with or without the host's /dev/kvm passed in as a device.
 */
final class ContainerTier {
    private ContainerTier() {}

    static final String IMAGE = System.getProperty("jkvm.container.image", "jkvm-runtime:latest");
    static final Path HOST_KVM = Path.of("/dev/kvm");
    /** Where the image's {@code jkvm} wrapper looks for the jar. */
    static final String JAR_IN_CONTAINER = "/opt/jkvm/jkvm.jar";

    private static final String HOW = "run scripts/docker-up.sh (as root) and then containers/build";
    private static String missing; // null: not checked yet; "": all there

    /** Skips the calling test unless a Docker engine answers and the image is built. */
    static synchronized void requireDockerAndImage() {
        if (missing == null) missing = whatIsMissing();
        if (!missing.isEmpty()) Assumptions.abort(skip(missing));
    }

    private static String whatIsMissing() {
        if (!DockerClientFactory.instance().isDockerAvailable()) {
            return "no Docker engine is reachable (DOCKER_HOST or /var/run/docker.sock): " + HOW;
        }
        try {
            DockerClientFactory.instance().client().inspectImageCmd(IMAGE).exec();
        } catch (NotFoundException e) {
            return "the image " + IMAGE + " is not built: run containers/build"
                    + " (it needs a Docker engine: scripts/docker-up.sh)";
        }
        return "";
    }

    /** The file or directory named by system property {@code property}, or skips. */
    static Path hostFile(String property, String howToMakeIt) {
        String value = System.getProperty(property);
        Assumptions.assumeTrue(value != null,
                () -> skip("system property " + property + " is not set (run through Maven: "
                        + "mvn -pl integration-tests -am -Djkvm.groups=container verify)"));
        Path p = Path.of(value).toAbsolutePath().normalize();
        Assumptions.assumeTrue(Files.exists(p), () -> skip(p + " does not exist: " + howToMakeIt));
        return p;
    }

    /** The built jkvm jar, or skips. */
    static Path jkvmJar() {
        return hostFile("jkvm.container.jar", "build it: mvn -pl cli -am package -DskipTests");
    }

    /** Skips unless the host's /dev/kvm exists (the device passed into the containers). */
    static void requireHostKvm() {
        Assumptions.assumeTrue(Files.exists(HOST_KVM),
                () -> skip("this machine has no /dev/kvm to pass into a container"));
    }

    /**
     * A container of the image that idles (so tests can exec in it), running as root, with
     * jkvm's jar at {@link #JAR_IN_CONTAINER} and, if {@code withKvm}, the host's /dev/kvm.
     */
    @SuppressWarnings("resource")
    static GenericContainer<?> container(boolean withKvm) {
        return new GenericContainer<>(DockerImageName.parse(IMAGE))
                .withCommand("sleep", "3600")
                .withCopyFileToContainer(MountableFile.forHostPath(jkvmJar(), 0644), JAR_IN_CONTAINER)
                .withCreateContainerCmdModifier(cmd -> {
                    cmd.withUser("0:0");
                    if (withKvm) {
                        cmd.getHostConfig().withDevices(
                                new Device("rwm", HOST_KVM.toString(), HOST_KVM.toString()));
                    }
                })
                .withStartupTimeout(Duration.ofSeconds(60));
    }

    static String skip(String why) {
        String msg = "container tier skipped: " + why;
        System.err.println(msg);
        return msg;
    }
}
