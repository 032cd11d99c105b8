package org.jkvm.it.arm64;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

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
 * (the test initramfs unpacked into ext4) boots to its marker without an initrd. In the same host
 * boot, a guest with {@code --results-port} and {@code console=hvc0} reads a 32 MiB file from a
 * fresh page cache in 4 KiB requests: the queue notifications reach the device worker through
 * the ioeventfd, so jkvm's MMIO exits (its --stats-json, interrupt acknowledgements mostly) are
 * far fewer than the requests (/sys/block/vda/stat); the guest's RESULT line written to the port
 * jkvm.results is in the file, and its marker written to hvc0 is on jkvm's stdout. The same run
 * with {@code -Djkvm.virtio.ioeventfd=off} gives the figures without the ioeventfd. Last, a Debian
 * arm64 system (guest/debian-rootfs/build: trixie's Essential set and stress-ng, unpacked from
 * Debian's packages) boots from /dev/vda to its own init and runs the distribution's stress-ng.
 */
@Tag("arm64")
class Arm64VirtioBlkTest {
    private static final String NOTE = "NOTE-FROM-GUEST-7f3a";
    private static final Pattern READS = Pattern.compile("READS=(\\d+)");
    private static final Pattern MMIO_EXITS = Pattern.compile("\"mmio\"\\s*:\\s*(\\d+)");
    /**
     * Drops the page cache, reads big.bin in 4 KiB requests (readahead batches them, up to a MiB
     * at a time), prints the read requests the disk served, writes a RESULT line to the port named
     * jkvm.results (busybox has no udev: the name is in sysfs) and a marker to hvc0.
     */
    private static final String READ_BIG = "mkdir -p /mnt && mount -t ext4 -o ro /dev/vda /mnt"
            + " && echo 4 > /sys/block/vda/queue/max_sectors_kb && echo 1024 > /sys/block/vda/queue/read_ahead_kb"
            + " && sync && echo 3 > /proc/sys/vm/drop_caches"
            + " && r0=$(awk '{print $1}' /sys/block/vda/stat) && cat /mnt/big.bin > /dev/null"
            + " && r1=$(awk '{print $1}' /sys/block/vda/stat) && echo READS=$((r1 - r0))"
            + " && for p in /sys/class/virtio-ports/*; do [ \"$(cat $p/name)\" = jkvm.results ]"
            + " && echo \"RESULT reads=$((r1 - r0)) port=${p##*/}\" > /dev/${p##*/}; done"
            + " && echo HVC0-MARKER-5c1e > /dev/hvc0 && echo active=$(cat /sys/class/tty/console/active)";
    /** Debian's own binaries on the Debian root: the release, stress-ng's version and a 2-second CPU run. */
    private static final String DEBIAN = "echo DEBIAN-ON-VDA; cat /etc/debian_version; grep ' / ' /proc/mounts;"
            + " stress-ng --version && stress-ng --cpu 1 --timeout 2s --metrics-brief";
    private static Path kernel;
    private static Path initrd;
    private static Path debian;

    @BeforeAll
    static void guest() throws Exception {
        EmulatedArm64Host.requireOrSkip();
        initrd = GuestFixture.filesOrSkip().get(1);
        kernel = BuildScript.projectKernel();
        debian = BuildScript.debianRootfs();
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
        Path bigDir = Files.createDirectories(tmp.resolve("big"));
        Files.write(bigDir.resolve("big.bin"), "0123456789abcdef".repeat(2 << 20).getBytes(StandardCharsets.US_ASCII));
        Path big = ext4(bigDir, tmp.resolve("big.ext4"), "48M");
        String measure = "--disk big.ext4,ro --results-port results.txt --stats-json stats.json";
        String measured = GuestFixture.jkvmRun(measure, "console=hvc0 " + GuestFixture.command(READ_BIG))
                + "; rc=$?; echo RESULTS-FILE; cat results.txt; cat stats.json; exit $rc";

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
                        + GuestFixture.command("echo ROOT-ON-VDA; grep ' / ' /proc/mounts")))
                .step("ioeventfd", measured)
                .step("no-ioeventfd", measured.replace("java -jar", "java -D" + "jkvm.virtio.ioeventfd=off -jar"))
                .step("debian", run("--disk " + debian.getFileName(), "quiet root=/dev/vda rw rootfstype=ext4 init=/sbin/jkvm-init "
                        + GuestFixture.command(DEBIAN))),
                List.of(kernel, initrd, disk, root, big, debian));

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

        Steps.Step on = Steps.require(out, "ioeventfd");
        assertEquals(0, on.exitCode(), on.output());
        assertTrue(on.output().contains("JKVM-GUEST-CMD-EXIT 0"), "the guest's /dev/console is hvc0:\n" + on.output());
        assertTrue(on.output().contains("HVC0-MARKER-5c1e") && on.output().matches("(?s).*active=.*hvc0.*"), on.output());
        long reads = number(READS, on.output());
        String results = on.output().substring(on.output().indexOf("RESULTS-FILE"));
        // vportNp1: N is the virtio device's index (virtio0 is the disk), 1 the port's
        assertTrue(results.matches("(?s).*\nRESULT reads=" + reads + " port=vport\\d+p1\n.*"), "the results file:\n" + results);
        long exits = number(MMIO_EXITS, on.output());
        Steps.Step off = Steps.require(out, "no-ioeventfd");
        assertEquals(0, off.exitCode(), off.output());
        long readsOff = number(READS, off.output());
        long exitsOff = number(MMIO_EXITS, off.output());
        System.out.printf("virtio-blk: %d read requests, %d MMIO exits with ioeventfd; %d requests, %d exits without%n%s%n",
                reads, exits, readsOff, exitsOff, on.output().lines().filter(l -> l.matches(".*(HVC0|active=|READS=|CMD-EXIT).*"))
                        .collect(Collectors.joining("\n")));
        assertTrue(reads >= 8192 * 9 / 10, "32 MiB in 4 KiB requests: " + reads);
        assertTrue(exits * 4 < reads, "the data path exits: " + exits + " MMIO exits for " + reads + " requests");
        assertTrue(exitsOff > exits, "without ioeventfd the notifications exit: " + exitsOff + " vs " + exits);

        Steps.Step d = Steps.require(out, "debian");
        assertEquals(0, d.exitCode(), d.output());
        assertTrue(d.output().matches("(?s).*JKVM-GUEST-READY cpus=\\d+ kernel=6\\.12\\.\\S+ debian=13\\.\\d+.*"), d.output());
        assertTrue(d.output().contains("DEBIAN-ON-VDA") && d.output().matches("(?s).*\n13\\.\\d+\n.*"), d.output());
        assertTrue(d.output().matches("(?s).*/dev/(root|vda) / ext4 rw.*"), d.output());
        assertTrue(d.output().matches("(?s).*stress-ng, version 0\\.\\d+\\.\\d+.*"), d.output());
        assertTrue(d.output().contains("successful run completed") && d.output().contains("JKVM-GUEST-CMD-EXIT 0"), d.output());
        System.out.println(d.output().lines().filter(l -> l.matches(".*(GUEST-READY|DEBIAN|^13\\.|stress-ng.*(version|cpu |completed)|CMD-EXIT).*"))
                .collect(Collectors.joining("\n")));
    }

    private static long number(Pattern p, String output) {
        Matcher m = p.matcher(output);
        assertTrue(m.find(), p + " in:\n" + output);
        return Long.parseLong(m.group(1));
    }

    private static Map<String, Steps.Step> run(Steps steps, List<Path> files) throws IOException, InterruptedException {
        EmulatedArm64Host.Result r = EmulatedArm64Host.run("", Duration.ofMinutes(20), steps.script(), files);
        assertEquals(0, r.exitCode(), "the emulated host failed:\n" + r.output());
        return Steps.parse(r.output());
    }
}
