package org.jkvm.it.arm64;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * virtio-blk discard end to end in the emulated host: the Debian arm64 system
 * (guest/debian-rootfs/build) boots from a copy of its image on the host's tmpfs (which punches
 * holes), writes and deletes a 32 MiB file, and Debian's {@code fstrim} on the next boot gives the
 * free blocks back: the image's allocated size (du) drops by more than that file while its size
 * stays. The guest sees the limits jkvm puts in the config space (discard_max_bytes, granularity).
 * The same image given {@code ,ro} offers no discard: the guest's queue has no discard limit,
 * {@code fstrim} fails with EOPNOTSUPP, and the image is left unchanged.
 */
@Tag("arm64")
class Arm64DiscardTest {
    private static final Pattern KIB = Pattern.compile("ALLOCATED-KIB (\\d+) SIZE (\\d+)");
    private static final Pattern TRIMMED = Pattern.compile("\\((\\d+) bytes\\) trimmed");
    private static final String QUEUE = "echo discard_max_bytes=$(cat /sys/block/vda/queue/discard_max_bytes)"
            + " granularity=$(cat /sys/block/vda/queue/discard_granularity)";
    private static Path kernel;
    private static Path debian;

    @BeforeAll
    static void guest() throws Exception {
        EmulatedArm64Host.requireOrSkip();
        kernel = BuildScript.projectKernel();
        debian = BuildScript.debianRootfs();
    }

    private static String boot(String disk, String rootMode, String shellCommand) {
        return "java -jar jkvm.jar run --kernel Image --memory 256M --timeout 600 --disk " + disk
                + " --cmdline 'console=ttyS0 panic=-1 quiet root=/dev/vda " + rootMode + " rootfstype=ext4 init=/sbin/jkvm-init "
                + GuestFixture.command(shellCommand) + "'";
    }

    /** du's allocated KiB and the byte size of the copy, after a step. */
    private static String allocated() {
        return "; rc=$?; echo ALLOCATED-KIB $(du -k d.ext4 | cut -f1) SIZE $(wc -c < d.ext4); exit $rc";
    }

    @Test
    void fstrimGivesTheFreedBlocksBackAndAReadOnlyDiskOffersNoDiscard() throws Exception {
        String image = debian.getFileName().toString();
        Map<String, Steps.Step> out = run(new Steps()
                .step("fill", "cp " + image + " d.ext4 && " + boot("d.ext4", "rw",
                        QUEUE + "; dd if=/dev/urandom of=/fill bs=1M count=32 status=none && sync && rm /fill && sync && echo FILLED")
                        + allocated())
                .step("trim", boot("d.ext4", "rw", "fstrim -v / && sync") + allocated())
                // noload: the last boot powered off without unmounting, and a read-only disk cannot replay the journal
                .step("readonly", "sha256sum d.ext4 > before; " + boot("d.ext4,ro", "ro rootflags=noload",
                        QUEUE + "; fstrim -v /; echo fstrim=$?")
                        + "; rc=$?; sha256sum -c before && echo IMAGE-UNCHANGED; exit $rc"),
                List.of(kernel, debian));

        Steps.Step fill = Steps.require(out, "fill");
        assertEquals(0, fill.exitCode(), fill.output());
        assertTrue(fill.output().contains("FILLED") && fill.output().contains("JKVM-GUEST-CMD-EXIT 0"), fill.output());
        assertTrue(fill.output().contains("discard_max_bytes=" + (1L << 22) * 512 + " granularity=4096"), fill.output());
        long[] before = number(KIB, fill.output());

        Steps.Step trim = Steps.require(out, "trim");
        assertEquals(0, trim.exitCode(), trim.output());
        assertTrue(trim.output().contains("JKVM-GUEST-CMD-EXIT 0"), trim.output());
        long trimmed = number(TRIMMED, trim.output())[0];
        long[] after = number(KIB, trim.output());
        System.out.printf("discard: fstrim trimmed %d MiB; the image's allocation %d KiB -> %d KiB, size %d -> %d bytes%n",
                trimmed >> 20, before[0], after[0], before[1], after[1]);
        assertTrue(trimmed >= 32L << 20, "fstrim trims at least the deleted 32 MiB: " + trimmed);
        assertEquals(before[1], after[1], "the image keeps its size");
        assertTrue(after[0] < before[0] - (32 << 10), "allocated " + before[0] + " KiB before, " + after[0] + " KiB after");

        Steps.Step ro = Steps.require(out, "readonly");
        assertEquals(0, ro.exitCode(), ro.output());
        assertTrue(ro.output().contains("discard_max_bytes=0 "), ro.output());
        assertTrue(ro.output().contains("the discard operation is not supported"), ro.output());
        assertTrue(ro.output().matches("(?s).*fstrim=[1-9].*"), ro.output());
        assertFalse(ro.output().contains("trimmed"), ro.output());
        assertTrue(ro.output().contains("IMAGE-UNCHANGED"), ro.output());
    }

    private static long[] number(Pattern p, String output) {
        Matcher m = p.matcher(output);
        assertTrue(m.find(), p + " in:\n" + output);
        long[] values = new long[m.groupCount()];
        for (int i = 0; i < values.length; i++) values[i] = Long.parseLong(m.group(i + 1));
        return values;
    }

    private static Map<String, Steps.Step> run(Steps steps, List<Path> files) throws Exception {
        EmulatedArm64Host.Result r = EmulatedArm64Host.run("", Duration.ofMinutes(20), steps.script(), files);
        assertEquals(0, r.exitCode(), "the emulated host failed:\n" + r.output());
        return Steps.parse(r.output());
    }
}
