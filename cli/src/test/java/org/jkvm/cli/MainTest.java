package org.jkvm.cli;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.jkvm.kvm.Kvm;
import org.jkvm.kvm.KvmException;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The jkvm command's help, and {@code jkvm caps}. */
class MainTest {
    @Tag("unit")
    @Test
    void helpListsTheCommandsAndExitCodes() {
        Cli r = Cli.run("--help");
        assertEquals(0, r.exitCode());
        assertTrue(r.out().contains("Usage: jkvm"), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.strip().startsWith("run ")), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.strip().startsWith("caps ")), r.out());
        assertTrue(r.out().contains("Exit codes:"), r.out());
        assertEquals("", r.err());
    }

    @Tag("unit")
    @Test
    void runHelpListsItsExitCodes() {
        Cli r = Cli.run("run", "--help");
        assertEquals(0, r.exitCode());
        for (String s : new String[] {"--kernel", "--pv", "--timeout", "the guest panicked", "130"}) {
            assertTrue(r.out().contains(s), s + " missing from:\n" + r.out());
        }
    }

    @Tag("unit")
    @Test
    void aCommandLineNamingACommandBuildsThatOneOnly() {
        assertEquals(Set.of("run"), Main.commandLine(List.of("run", "--help")).getSubcommands().keySet());
        assertEquals(Set.of("caps"), Main.commandLine(List.of("--log-level", "debug", "caps")).getSubcommands().keySet());
        assertEquals(List.of("run", "caps", "experiment", "help"),
                List.copyOf(Main.commandLine(List.of("help", "caps")).getSubcommands().keySet()));
        assertEquals(List.of("run", "caps", "experiment", "help"),
                List.copyOf(Main.commandLine(List.of("--version")).getSubcommands().keySet()));
    }

    @Tag("unit")
    @Test
    void anUnknownLogLevelIsAUsageError() {
        Cli r = Cli.run("--log-level", "loud", "caps", "--device", "/nonexistent");
        assertEquals(2, r.exitCode());
        assertTrue(r.err().contains("'loud' is not a log level"), r.err());
    }

    @Tag("unit")
    @Test
    void versionNamesJkvm() {
        Cli r = Cli.run("--version");
        assertEquals(0, r.exitCode());
        assertTrue(r.out().startsWith("jkvm "), r.out());
    }

    @Tag("unit")
    @Test
    void unknownCommandIsAUsageError() {
        Cli r = Cli.run("frobnicate");
        assertEquals(2, r.exitCode());
        assertTrue(r.err().contains("frobnicate"), r.err());
    }

    @Tag("unit")
    @Test
    void capsOnAMissingDeviceExits2WithAHint() {
        Cli r = Cli.run("caps", "--device", "/nonexistent");
        assertEquals(2, r.exitCode());
        assertEquals("", r.out());
        String[] lines = r.errLines();
        assertEquals(1, lines.length, r.err());
        assertTrue(lines[0].startsWith("jkvm: open(/nonexistent): ENOENT"), lines[0]);
        assertTrue(lines[0].contains("this host offers no KVM"), lines[0]);
        assertTrue(lines[0].contains("--device /dev/kvm"), lines[0]);
    }

    @Tag("kvm")
    @Test
    void capsAsJsonDescribesThisHostsKvm() {
        Assumptions.assumeTrue(Files.exists(Kvm.DEFAULT_PATH), "kvm tier skipped: this machine has no /dev/kvm");
        try {
            Kvm.open().close();
        } catch (KvmException e) {
            Assumptions.abort("kvm tier skipped: /dev/kvm cannot be opened: " + e.getMessage());
        }
        Cli r = Cli.run("caps", "--json");
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(r.out().startsWith("{\n  \"device\": \"/dev/kvm\",\n"), r.out());
        assertTrue(r.out().contains("\"api_version\": 12"), r.out());
    }

    @Tag("kvm")
    @Test
    void capsTableNamesTheDevice() {
        Assumptions.assumeTrue(Files.isReadable(Path.of("/dev/kvm")), "kvm tier skipped: /dev/kvm not readable");
        Cli r = Cli.run("caps");
        Assumptions.assumeTrue(r.exitCode() != 2, () -> "kvm tier skipped: " + r.err());
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(r.out().startsWith("/dev/kvm on "), r.out());
        assertTrue(r.out().contains("vCPUs per VM"), r.out());
    }

    /** Through main(), in a JVM of its own: what a command print()s must reach stdout before exit. */
    @Tag("unit")
    @Test
    void mainFlushesWhatACommandPrinted(@TempDir Path dir) throws Exception {
        Path spec = dir.resolve("e.json");
        Files.writeString(spec, """
                {"name": "e", "guest": {"kernel": "I", "initrd": "R"}, "vcpus": 2, "pin": "0",
                 "workloads": [{"name": "cpu", "workers": 2, "seconds": 1}],
                 "variants": [{"name": "base", "pvlock": "off"}], "repetitions": 1}
                """);
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                "experiment", "report", spec.toString()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue());
        assertTrue(out.startsWith("Experiment e: 0 of 1 measured runs"), "the report on stdout:\n" + out);
    }
}
