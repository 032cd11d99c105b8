package org.jkvm.it.container;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.jkvm.kvm.Arch;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.testcontainers.containers.Container.ExecResult;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.MountableFile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The kvm tier inside a container: kvm-bindings' own compiled {@code @Tag("kvm")} tests (tiny
 * real-mode guests, the vCPU kick, the 1000-VM leak check), not copies, run by JUnit's console
 * launcher on the image's JRE against the host's /dev/kvm passed in as a device. Every one of
 * them must succeed: a skipped or aborted test (say, /dev/kvm not opening in the container)
 * fails this test.
 */
@Tag("container")
class KvmTierInContainerTest {
    private static final String OPT = "/opt/kvm-bindings";

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void kvmBindingsKvmTierPassesInsideTheContainer() throws Exception {
        ContainerTier.requireDockerAndImage();
        ContainerTier.requireHostKvm();
        Assumptions.assumeTrue(Arch.host() == Arch.X86_64, () -> ContainerTier.skip(
                "the kvm tier's tiny guests are x86_64 code; this host is " + Arch.host()));
        String build = "build them: mvn -pl kvm-bindings test-compile (or run this tier in the reactor: "
                + "mvn -pl integration-tests -am -Djkvm.groups=container verify)";
        Path target = ContainerTier.hostFile("jkvm.container.kvmBindings", build);
        Path classes = target.resolve("classes");
        Path testClasses = target.resolve("test-classes");
        Assumptions.assumeTrue(Files.isDirectory(classes) && Files.isDirectory(testClasses),
                () -> ContainerTier.skip("no " + classes + " or " + testClasses + ": " + build));
        Path launcher = ContainerTier.hostFile("jkvm.container.consoleLauncher",
                "Maven copies it there (maven-dependency-plugin in integration-tests/pom.xml)");
        List<String> expected = kvmTaggedClasses(classes, testClasses);
        assertFalse(expected.isEmpty(), "no @Tag(\"kvm\") test classes in " + testClasses);

        try (GenericContainer<?> c = ContainerTier.container(true)
                .withCopyFileToContainer(MountableFile.forHostPath(classes), OPT + "/classes")
                .withCopyFileToContainer(MountableFile.forHostPath(testClasses), OPT + "/test-classes")
                .withCopyFileToContainer(MountableFile.forHostPath(launcher), "/opt/junit/console.jar")) {
            c.start();

            ExecResult r = c.execInContainer("java", "--enable-native-access=ALL-UNNAMED",
                    "-jar", "/opt/junit/console.jar", "execute",
                    "--disable-banner", "--disable-ansi-colors", "--details=tree",
                    "--fail-if-no-tests", "--include-engine", "junit-jupiter",
                    "--class-path", OPT + "/classes:" + OPT + "/test-classes",
                    "--scan-class-path", OPT + "/test-classes",
                    "--include-tag", "kvm");
            String out = r.getStdout() + r.getStderr();
            System.out.println("kvm tier in the container (" + ContainerTier.IMAGE + "):\n" + out);

            Map<String, Integer> counts = summary(out);
            assertEquals(0, r.getExitCode(), () -> "console launcher exit code; output:\n" + out);
            assertEquals(0, counts.getOrDefault("failed", -1), () -> "failed tests:\n" + out);
            assertEquals(0, counts.getOrDefault("aborted", -1), () -> "aborted (skipped by an assumption):\n" + out);
            assertEquals(0, counts.getOrDefault("skipped", -1), () -> "skipped tests:\n" + out);
            assertTrue(counts.getOrDefault("successful", 0) > 0, () -> "no successful test:\n" + out);
            for (String name : expected) {
                assertTrue(out.contains(name), () -> name + " did not run in the container:\n" + out);
            }
        }
    }

    /** The simple names of the top-level test classes tagged "kvm" in kvm-bindings' build. */
    private static List<String> kvmTaggedClasses(Path classes, Path testClasses) throws IOException {
        List<String> names = new ArrayList<>();
        URL[] urls = {testClasses.toUri().toURL(), classes.toUri().toURL()};
        try (URLClassLoader loader = new URLClassLoader(urls, KvmTierInContainerTest.class.getClassLoader());
             Stream<Path> files = Files.walk(testClasses)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                String rel = testClasses.relativize(f).toString();
                if (!rel.endsWith(".class") || rel.contains("$")) continue;
                String name = rel.substring(0, rel.length() - ".class".length()).replace('/', '.');
                try {
                    Class<?> k = Class.forName(name, false, loader);
                    if (Arrays.stream(k.getAnnotationsByType(Tag.class)).anyMatch(t -> t.value().equals("kvm"))) {
                        names.add(k.getSimpleName());
                    }
                } catch (ClassNotFoundException | LinkageError e) {
                    // not a class this test can inspect; the launcher's counts still cover it
                }
            }
        }
        return names;
    }

    /** The console launcher's closing counts: "[  5 tests successful ]" gives successful=5. */
    private static Map<String, Integer> summary(String out) {
        Map<String, Integer> counts = new TreeMap<>();
        Matcher m = Pattern.compile("\\[\\s*(\\d+) tests (\\w+)\\s*]").matcher(out);
        while (m.find()) counts.put(m.group(2), Integer.parseInt(m.group(1)));
        return counts;
    }
}
