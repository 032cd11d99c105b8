package org.jkvm.it.arm64;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * virtio-blk end to end in the emulated host, on the project's 6.12 Image (kernel/build; its
 * config has VIRTIO_MMIO, VIRTIO_BLK and EXT4 built in): an ext4 image made here with
 * {@code mkfs.ext4 -d} is mounted by the guest, written, synced and the guest powered off; a second
 * boot reads the file back (and the disk's serial through get-id); the same image given
 * {@code ,ro} refuses writes (EROFS) and is left unchanged; and a root file system on /dev/vda
 * (the test initramfs unpacked into ext4) boots to its marker without an initrd.
 */
@Tag("arm64")
class Arm64VirtioBlkTest {
    private static final String NOTE = "NOTE-FROM-GUEST-7f3a";
    private static Path kernel;
    private static Path initrd;

    @BeforeAll
    static void guest() throws Exception {
        EmulatedArm64Host.requireOrSkip();
        initrd = GuestFixture.filesOrSkip().get(1);
        kernel = Path.of(BuildScript.output("kernel/build", "JKVM_KERNEL_IMAGE", "--with-pvlock", "--quiet"));
    }

    private static void sh(Path dir, String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        Assumptions.assumeTrue(p.waitFor(2, TimeUnit.MINUTES) && p.exitValue() == 0,
                "arm64 tier skipped: " + String.join(" ", cmd) + " failed (./setup --tests installs e2fsprogs and cpio):\n" + out);
    }

    /** An ext4 image of {@code size} holding {@code dir}'s files. */
    private static Path ext4(Path dir, Path image, String size) throws IOException, InterruptedException {
        sh(dir, "mkfs.ext4", "-q", "-F", "-d", dir.toString(), image.toString(), size);
        return image;
    }

    private static String run(String disk, String cmdline) {
        return "java -jar jkvm.jar run --kernel Image --memory 256M --timeout 600 " + disk + " --cmdline 'console=ttyS0 panic=-1 " + cmdline + "'";
    }

    private static String guestRun(String disk, String shellCommand) {
        return GuestFixture.jkvmRun("--memory 256M --timeout 600 " + disk, GuestFixture.command(shellCommand));
    }

    @Test
    void aFileWrittenAndSyncedIsReadBackOnTheNextBootAndAReadOnlyDiskRefusesWrites(@TempDir Path tmp) throws Exception {
        Path content = Files.createDirectories(tmp.resolve("content"));
        Files.writeString(content.resolve("seed.txt"), "SEED-FROM-HOST\n");
        Path disk = ext4(content, tmp.resolve("disk.ext4"), "16M");
        Path rootDir = Files.createDirectories(tmp.resolve("root"));
        sh(rootDir, "sh", "-c", "zcat " + initrd + " | cpio -id --quiet");
        Path root = ext4(rootDir, tmp.resolve("root.ext4"), "64M");

        String mount = "mkdir -p /mnt && mount -t ext4 /dev/vda /mnt";
        Map<String, Steps.Step> out = run(new Steps()
                .step("write", guestRun("--disk disk.ext4,serial=jkvm-disk-0",
                        mount + " && cat /mnt/seed.txt && echo " + NOTE + " > /mnt/note.txt && sync && umount /mnt && echo WROTE"))
                .step("read", guestRun("--disk disk.ext4,serial=jkvm-disk-0",
                        mount + " -o ro && cat /mnt/note.txt && echo serial=$(cat /sys/block/vda/serial)"))
                .step("readonly", "sha256sum disk.ext4 > before; "
                        + guestRun("--disk disk.ext4,ro", mount + " -o ro && cat /mnt/note.txt; echo x > /mnt/x.txt; echo touch=$?;"
                        + " dd if=/dev/zero of=/dev/vda bs=512 count=1 conv=fsync; echo dd=$?")
                        + "; rc=$?; sha256sum -c before && echo IMAGE-UNCHANGED; exit $rc")
                .step("root", run("--disk root.ext4", "root=/dev/vda rw rootfstype=ext4 init=/init "
                        + GuestFixture.command("echo ROOT-ON-VDA; grep ' / ' /proc/mounts"))),
                List.of(kernel, initrd, disk, root));

        Steps.Step write = Steps.require(out, "write");
        assertEquals(0, write.exitCode(), write.output());
        assertTrue(write.output().contains("SEED-FROM-HOST"), write.output());
        assertTrue(write.output().contains("WROTE\n") && write.output().contains("JKVM-GUEST-CMD-EXIT 0"), write.output());

        Steps.Step read = Steps.require(out, "read");
        assertEquals(0, read.exitCode(), read.output());
        assertTrue(read.output().contains(NOTE), read.output());
        assertTrue(read.output().contains("serial=jkvm-disk-0"), read.output());
        assertTrue(read.output().contains("JKVM-GUEST-CMD-EXIT 0"), read.output());

        Steps.Step ro = Steps.require(out, "readonly");
        assertEquals(0, ro.exitCode(), ro.output());
        assertTrue(ro.output().contains(NOTE), "a read-only disk still reads:\n" + ro.output());
        assertFalse(ro.output().contains("touch=0"), ro.output());
        assertTrue(ro.output().contains("Read-only file system"), ro.output());
        assertTrue(ro.output().matches("(?s).*dd=[1-9].*"), ro.output());
        assertTrue(ro.output().contains("IMAGE-UNCHANGED"), ro.output());

        Steps.Step r = Steps.require(out, "root");
        assertEquals(0, r.exitCode(), r.output());
        assertTrue(r.output().contains("ROOT-ON-VDA"), r.output());
        assertTrue(r.output().matches("(?s).*/dev/(root|vda) / ext4 rw.*"), r.output());
        assertNotEquals(-1, r.output().indexOf("JKVM-GUEST-CMD-EXIT 0"), r.output());
    }

    private static Map<String, Steps.Step> run(Steps steps, List<Path> files) throws IOException, InterruptedException {
        EmulatedArm64Host.Result r = EmulatedArm64Host.run("", Duration.ofMinutes(20), steps.script(), files);
        assertEquals(0, r.exitCode(), "the emulated host failed:\n" + r.output());
        return Steps.parse(r.output());
    }
}
