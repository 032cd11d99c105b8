package org.jkvm.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

import org.jkvm.vmm.kvmstats.KvmStatsWindow;
import org.jkvm.vmm.profile.GuestProfile;
import org.jkvm.vmm.profile.ProfileFiles;
import org.jkvm.vmm.profile.VcpuSamples;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --profile[=HZ]}, {@code --symbols}, {@code --profile-out}: off by default, checked before boot; the
 * report over the workload's window where the guest marked one, with the whole run's files beside it.
 */
@Tag("unit")
class ProfileOptionsTest {
    private static ProfileOptions parse(String... args) {
        ProfileOptions profile = new ProfileOptions();
        CommandSpec spec = CommandSpec.create();
        profile.addTo(spec);
        new CommandLine(spec).parseArgs(args);
        return profile;
    }

    @Test
    void offUnlessGivenAndOnWithOrWithoutARate() {
        assertFalse(parse().enabled());
        assertTrue(parse().attach().isEmpty());
        assertTrue(parse("--profile").enabled());
        assertEquals(1, parse("--profile=250").attach().size());
    }

    @Test
    void symbolsOrOutputWithoutProfileAreRefused() {
        assertEquals("--symbols needs --profile", assertThrows(UserError.class, () -> parse("--symbols", "m").check()).getMessage());
        assertEquals("--profile-out needs --profile",
                assertThrows(UserError.class, () -> parse("--profile-out", "f").check()).getMessage());
    }

    @Test
    void theSymbolFileIsReadBeforeBootAndABadOneNamesTheFileAndLine(@TempDir Path dir) throws Exception {
        Path map = Files.write(dir.resolve("System.map"), List.of("ffff800080000000 T _text", "ffff800080010000 t vectors"));
        assertEquals(2, parse("--profile", "--symbols", map.toString()).check().orElseThrow().size());
        Path bad = Files.write(dir.resolve("bad.map"), List.of("nonsense"));
        assertEquals("--symbols " + bad + ": " + bad + ":1: not 'ADDRESS TYPE NAME': nonsense",
                assertThrows(UserError.class, () -> parse("--profile", "--symbols", bad.toString()).check()).getMessage());
        Path none = dir.resolve("none.map");
        assertEquals("--symbols " + none + ": no such file",
                assertThrows(UserError.class, () -> parse("--profile", "--symbols", none.toString()).check()).getMessage());
    }

    @Test
    void profileOutIsAFolderMadeIfMissingWithItsThreeFilesClaimed(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("prof");
        try (ClaimedFolder claimed = parse("--profile", "--profile-out", out.toString()).claimOut()) {
            assertTrue(Files.isDirectory(out));
            claimed.write(Map.of(ProfileFiles.FOLDED, "vcpu0;[user] 1\n", ProfileFiles.CATEGORIES, "c\n",
                    ProfileFiles.FLAME_GRAPH, "<svg/>\n"));
        }
        try (var files = Files.list(out)) {
            assertEquals(List.of(ProfileFiles.CATEGORIES, ProfileFiles.FLAME_GRAPH, ProfileFiles.FOLDED),
                    files.map(f -> f.getFileName().toString()).sorted().toList(), "the three files and no claim left behind");
        }
        assertEquals("vcpu0;[user] 1\n", Files.readString(out.resolve(ProfileFiles.FOLDED)));
        Path file = Files.writeString(dir.resolve("file"), "");
        assertEquals("--profile-out " + file + ": not a folder",
                assertThrows(UserError.class, () -> parse("--profile", "--profile-out", file.toString()).claimOut()).getMessage());
    }

    @Test
    void aFolderTheRunWroteNothingIntoIsRemovedAndOneThatWasThereIsKept(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("prof");
        try (ClaimedFolder claimed = parse("--profile", "--profile-out", out.toString()).claimOut()) {
            assertTrue(Files.isDirectory(out.resolve(ProfileFiles.WHOLE_RUN)), "claimed before boot, the window being unknown");
        }
        assertFalse(Files.exists(out), "made by the claim, nothing written");
        Files.createDirectories(out.resolve(ProfileFiles.WHOLE_RUN));
        try (ClaimedFolder claimed = parse("--profile", "--profile-out", out.toString()).claimOut()) {
            assertTrue(Files.isDirectory(out));
        }
        assertTrue(Files.isDirectory(out.resolve(ProfileFiles.WHOLE_RUN)), "the user's folders stay");
    }

    @Test
    void aRunWithoutAWindowIsReportedWholeAndLeavesNoWholeRunFolder(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("prof");
        ProfileOptions profile = parse("--profile=100", "--profile-out", out.toString());
        StringWriter err = new StringWriter();
        try (ClaimedFolder claimed = profile.claimOut()) {
            profile.report(bootThenWorkload(), Optional.empty(), KvmStatsWindow.unavailable("x"), Optional.empty(),
                    new PrintWriter(err, true), claimed);
        }
        assertTrue(err.toString().startsWith("jkvm: profile: 3 on-CPU samples;"), err.toString());
        assertEquals("vcpu0;[user] 2\nvcpu0;[jkvm] 1\n".lines().sorted().toList(),
                Files.readString(out.resolve(ProfileFiles.FOLDED)).lines().sorted().toList());
        assertFalse(Files.exists(out.resolve(ProfileFiles.WHOLE_RUN)));
    }

    @Test
    void aMarkedWindowIsReportedAloneWithTheWholeRunsFilesBesideIt(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("prof");
        ProfileOptions profile = parse("--profile=100", "--profile-out", out.toString());
        WorkloadWindow.Figures window = new WorkloadWindow.Figures(2_000, 3_000, KvmStatsWindow.unavailable("x"), Optional.empty(),
                Double.NaN, Optional.empty(), Optional.empty());
        StringWriter err = new StringWriter();
        try (ClaimedFolder claimed = profile.claimOut()) {
            profile.report(bootThenWorkload(), Optional.empty(), KvmStatsWindow.unavailable("x"), Optional.of(window),
                    new PrintWriter(err, true), claimed);
        }
        assertTrue(err.toString().startsWith("jkvm: profile: over the workload's window (0.000 s): 1 of the run's 3 samples;"
                + " the whole run's in " + out.resolve(ProfileFiles.WHOLE_RUN) + "\njkvm: profile: 1 on-CPU samples;"), err.toString());
        assertEquals("vcpu0;[user] 1\n", Files.readString(out.resolve(ProfileFiles.FOLDED)), "the boot's sample left out");
        assertEquals(List.of("vcpu0;[jkvm] 1", "vcpu0;[user] 2"),
                Files.readString(out.resolve(ProfileFiles.WHOLE_RUN).resolve(ProfileFiles.FOLDED)).lines().sorted().toList());
        assertTrue(Files.readString(out.resolve(ProfileFiles.WHOLE_RUN).resolve(ProfileFiles.FLAME_GRAPH)).contains("whole run"));
    }

    /** A user-space sample in the boot, one in jkvm, then one in the workload at 2000 ns. */
    private static GuestProfile bootThenWorkload() {
        VcpuSamples v = new VcpuSamples();
        v.add(1_000, 0x1000, 0, 1, 10);
        v.add(1_500, 0, VcpuSamples.VMM, 1, 0);
        v.add(2_000, 0x2000, 0, 1, 10);
        v.ranFor(30_000_000);
        return new GuestProfile(100, List.of(v), OptionalLong.empty());
    }
}
