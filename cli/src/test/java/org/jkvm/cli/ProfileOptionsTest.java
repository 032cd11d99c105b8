package org.jkvm.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.jkvm.vmm.profile.ProfileFiles;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code --profile[=HZ]}, {@code --symbols}, {@code --profile-out}: off by default, checked before boot. */
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
}
