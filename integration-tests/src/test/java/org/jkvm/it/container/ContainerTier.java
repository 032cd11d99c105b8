package org.jkvm.it.container;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.AccessMode;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.Device;
import com.github.dockerjava.api.model.Volume;
import org.junit.jupiter.api.Assumptions;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.Container.ExecResult;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.MountableFile;

/**
 * What the {@code container} tier needs, and its containers: a reachable Docker engine and the
 * local images, built from Debian packages by {@code containers/build} (nothing is pulled from a
 * registry): {@code jkvm-runtime} (Debian's JRE 25 and busybox) and {@code jkvm-arm64-host} (the
 * same plus QEMU, to boot the emulated arm64 host); jkvm's jar copied in, run as root, with or
 * without the host's /dev/kvm passed in as a device.
 */
final class ContainerTier {
    private ContainerTier() {}

    static final String IMAGE = System.getProperty("jkvm.container.image", "jkvm-runtime:latest");
    static final String ARM64_HOST_IMAGE = System.getProperty("jkvm.container.arm64HostImage", "jkvm-arm64-host:latest");
    static final Path HOST_KVM = Path.of("/dev/kvm");
    /** Where the image's {@code jkvm} wrapper looks for the jar. */
    static final String JAR_IN_CONTAINER = "/opt/jkvm/jkvm.jar";

    private static final String HOW = "run scripts/docker-up.sh (as root) and then containers/build";
    /** Per image: "" when everything is there, else what is missing. */
    private static final Map<String, String> MISSING = new HashMap<>();

    /** Skips the calling test unless a Docker engine answers and the runtime image is built. */
    static void requireDockerAndImage() {
        requireDockerAndImage(IMAGE, "containers/build");
    }

    /** Skips the calling test unless a Docker engine answers and {@code image} is built. */
    static synchronized void requireDockerAndImage(String image, String buildCommand) {
        String missing = MISSING.computeIfAbsent(image, i -> whatIsMissing(i, buildCommand));
        if (!missing.isEmpty()) Assumptions.abort(skip(missing));
    }

    private static String whatIsMissing(String image, String buildCommand) {
        if (!DockerClientFactory.instance().isDockerAvailable()) {
            return "no Docker engine is reachable (DOCKER_HOST or /var/run/docker.sock): " + HOW;
        }
        try {
            DockerClientFactory.instance().client().inspectImageCmd(image).exec();
        } catch (NotFoundException e) {
            return "the image " + image + " is not built: run " + buildCommand
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

    /**
     * The test classes of module {@code module}'s build, whose target directory system property
     * {@code property} names, if they hold {@code className} (a probe run in a container), or skips.
     */
    static Path testClassesWith(String property, String module, String className) {
        String build = "build them: mvn -pl " + module + " -am test-compile (or run this tier in the reactor: "
                + "mvn -pl integration-tests -am -Djkvm.groups=container verify)";
        Path testClasses = hostFile(property, build).resolve("test-classes");
        Assumptions.assumeTrue(Files.exists(testClasses.resolve(className.replace('.', '/') + ".class")),
                () -> skip("no " + className + " in " + testClasses + ": " + build));
        return testClasses;
    }

    /** Where {@link #withProbeClasses} puts a module's test classes in a container. */
    private static final String PROBE_CLASSES = "/opt/probe/test-classes";

    /** {@code c} with {@code testClasses} (from {@link #testClassesWith}) copied in, for {@link #runProbe}. */
    static GenericContainer<?> withProbeClasses(GenericContainer<?> c, Path testClasses) {
        return c.withCopyFileToContainer(MountableFile.forHostPath(testClasses), PROBE_CLASSES);
    }

    /** Runs probe {@code mainClass} in the started container {@code c}, on jkvm's jar and the probe classes. */
    static ExecResult runProbe(GenericContainer<?> c, String mainClass, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("java", "--enable-native-access=ALL-UNNAMED",
                "-cp", JAR_IN_CONTAINER + ":" + PROBE_CLASSES, mainClass));
        command.addAll(List.of(args));
        return c.execInContainer(command.toArray(String[]::new));
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
    static GenericContainer<?> container(boolean withKvm) {
        return container(IMAGE, withKvm);
    }

    /** The same for another of the tier's images. */
    static GenericContainer<?> container(String image, boolean withKvm) {
        return container(image, withKvm, Map.of());
    }

    /**
     * The same with host paths bind-mounted read-only (host path -> container path). Binds go in
     * through the create command: Testcontainers' own file binds first probe the engine with a
     * helper image from a registry, which is unreachable here and costs minutes of retries.
     */
    @SuppressWarnings("resource")
    static GenericContainer<?> container(String image, boolean withKvm, Map<Path, String> readOnly) {
        List<Bind> binds = readOnly.entrySet().stream()
                .map(e -> new Bind(e.getKey().toString(), new Volume(e.getValue()), AccessMode.ro)).toList();
        return new GenericContainer<>(DockerImageName.parse(image))
                .withCommand("sleep", "3600")
                .withCopyFileToContainer(MountableFile.forHostPath(jkvmJar(), 0644), JAR_IN_CONTAINER)
                .withCreateContainerCmdModifier(cmd -> {
                    cmd.withUser("0:0");
                    if (withKvm) {
                        cmd.getHostConfig().withDevices(
                                new Device("rwm", HOST_KVM.toString(), HOST_KVM.toString()));
                    }
                    if (!binds.isEmpty()) cmd.getHostConfig().withBinds(binds);
                })
                .withStartupTimeout(Duration.ofSeconds(60));
    }

    static String skip(String why) {
        String msg = "container tier skipped: " + why;
        System.err.println(msg);
        return msg;
    }
}
