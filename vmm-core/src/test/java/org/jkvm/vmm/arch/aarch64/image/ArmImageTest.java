package org.jkvm.vmm.arch.aarch64.image;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.GZIPOutputStream;

import org.jkvm.vmm.arch.aarch64.image.BadKernelImageException.Reason;
import org.jkvm.vmm.io.FileProblem;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The arm64 Image header checks, on synthetic images. */
@Tag("unit")
class ArmImageTest {
    static final long RAM = 0x4000_0000L;
    static final long MiB = 1L << 20;
    static final String SRC = "/tmp/test-Image";

    /** A synthetic Image: the 64-byte header followed by filler up to {@code length} bytes. */
    static byte[] image(int length, long textOffset, long imageSize, long flags) {
        byte[] b = new byte[length];
        ByteBuffer h = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        h.putInt(0, 0x91005a4d);              // "MZ" + add x13, x18, #0x16, as real kernels start
        h.putInt(4, 0x14000000);              // b stext
        h.putLong(8, textOffset);
        h.putLong(16, imageSize);
        h.putLong(24, flags);
        h.putInt(56, ArmImage.MAGIC);
        for (int i = 64; i < length; i++) {
            b[i] = (byte) (i * 31);
        }
        return b;
    }

    /** A modern little-endian image: 4 KiB pages, placeable anywhere (flags 0xa, like Debian's). */
    static byte[] modern(int length, long imageSize) {
        return image(length, 0, imageSize, 0xa);
    }

    /** Adds a PE/COFF header at 0x40 with one section whose raw data ends at {@code rawEnd}. */
    static byte[] withPe(byte[] b, long rawEnd) {
        ByteBuffer h = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        h.putInt(60, 0x40);
        h.putInt(0x40, 0x00004550);           // "PE\0\0"
        h.putShort(0x44, (short) 0xaa64);     // machine arm64
        h.putShort(0x46, (short) 1);          // one section
        h.putShort(0x54, (short) 0);          // no optional header (real kernels have one)
        int s = 0x40 + 24;
        Arrays.fill(b, s, s + 40, (byte) 0);
        h.putInt(s + 16, (int) (rawEnd - 0x1000));   // SizeOfRawData
        h.putInt(s + 20, 0x1000);                     // PointerToRawData
        return b;
    }

    static byte[] gzip(byte[] b) throws IOException {
        var out = new ByteArrayOutputStream();
        try (var gz = new GZIPOutputStream(out)) {
            gz.write(b);
        }
        return out.toByteArray();
    }

    /** The image's bytes, as they would be copied into guest RAM. */
    static byte[] bytes(ArmImage img) throws IOException {
        byte[] b = new byte[Math.toIntExact(img.kernel().size())];
        img.kernel().copyTo(MemorySegment.ofArray(b));
        return b;
    }

    static BadKernelImageException rejected(Reason reason, Executable what, String... mentions) {
        var e = assertThrows(BadKernelImageException.class, what);
        assertEquals(reason, e.reason(), e.getMessage());
        assertTrue(e.getMessage().startsWith("kernel image " + e.source() + ": "), e.getMessage());
        for (String m : mentions) {
            assertTrue(e.getMessage().contains(m), () -> "'" + m + "' missing from: " + e.getMessage());
        }
        return e;
    }

    @Test
    void theReleaseComesFromTheBannerAndIsEmptyWithoutOne() {
        byte[] b = modern(8192, 32 * MiB);
        assertTrue(ArmImage.parse(b, SRC).release().isEmpty());
        byte[] banner = "%s version %s\0Linux version 6.12.121+deb12-arm64 (debian-kernel@lists.debian.org) #1 SMP\0"
                .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        System.arraycopy(banner, 0, b, 4000, banner.length);
        assertEquals("6.12.121+deb12-arm64", ArmImage.parse(b, SRC).release().orElseThrow());
    }

    @Test
    void theReleaseIsTheFirstWellFormedBannerAtAnyOffset() {
        byte[] banner = "Linux version %s\nLinux version \0Linux version 6.1.0-jkvm (x)"
                .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        for (int at = 64; at < 64 + 16; at++) {
            byte[] b = modern(8192, 32 * MiB);
            System.arraycopy(banner, 0, b, at, banner.length);
            assertEquals("6.1.0-jkvm", ArmImage.parse(b, SRC).release().orElseThrow(), "banner at " + at);
        }
        byte[] b = modern(8192, 32 * MiB);
        byte[] tail = "Linux version 6.1.0 ".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        System.arraycopy(tail, 0, b, b.length - tail.length, tail.length);
        assertEquals("6.1.0", ArmImage.parse(b, SRC).release().orElseThrow());
        b[b.length - 1] = 'x'; // no byte after the release: not a banner
        assertTrue(ArmImage.parse(b, SRC).release().isEmpty());
    }

    @Test
    void theReleaseIsFoundWhereverTheSearchsChunksEnd(@TempDir Path dir) throws IOException {
        byte[] banner = "Linux version 6.12.0-chunk (x)".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        Path f = dir.resolve("Image");
        // 1 MiB and 2 MiB are ends of the search's 64 KiB chunks
        for (int at : new int[] {(int) MiB - 200, (int) MiB - 79, (int) MiB - 60, (int) MiB - 1, (int) MiB + 5,
                                 (int) (2 * MiB) + 100, (int) (3 * MiB) - banner.length}) {
            byte[] b = modern((int) (3 * MiB), 32 * MiB);
            System.arraycopy(banner, 0, b, at, banner.length);
            assertEquals("6.12.0-chunk", ArmImage.parse(b, SRC).release().orElseThrow(), "banner at " + at);
            Files.write(f, b);
            assertEquals("6.12.0-chunk", ArmImage.read(f).release().orElseThrow(), "banner in the file at " + at);
        }
    }

    @Test
    void aFileIsRefusedAsItsBytesAre(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("Image");
        byte[] elf = new byte[4096];
        elf[0] = 0x7f; elf[1] = 'E'; elf[2] = 'L'; elf[3] = 'F'; elf[18] = (byte) 0xb7;
        byte[] xz = {(byte) 0xfd, '7', 'z', 'X', 'Z', 0, 1, 2};
        for (byte[] b : new byte[][] {elf, xz, new byte[0], Arrays.copyOf(modern(4096, MiB), 63),
                                      Arrays.copyOf(withPe(modern(0x3000, 4 * MiB), 0x3000), 0x2800),
                                      Arrays.copyOf(withPe(modern(0x3000, 4 * MiB), 0x3000), 0x50),
                                      image(4096, 0, 4 * MiB, 0xb), image(4096, 0x80001, MiB, 0xa)}) {
            Files.write(f, b);
            var fromBytes = assertThrows(BadKernelImageException.class, () -> ArmImage.parse(b, f.toString()));
            var fromFile = assertThrows(BadKernelImageException.class, () -> ArmImage.read(f));
            assertEquals(fromBytes.getMessage(), fromFile.getMessage());
            assertEquals(fromBytes.reason(), fromFile.reason());
        }
        byte[] ok = withPe(modern(0x3000, 4 * MiB), 0x3000);
        Files.write(f, ok);
        ArmImage img = ArmImage.read(f);
        assertEquals(0x3000, img.kernel().size());
        assertArrayEquals(ok, bytes(img));
    }

    @Test
    void aFileChangedAfterItsCheckIsRefusedWhenCopied(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("Image");
        byte[] b = modern(8192, MiB);
        Files.write(f, b);
        ArmImage shorter = ArmImage.read(f);
        ArmImage otherHeader = ArmImage.read(f);
        Files.write(f, Arrays.copyOf(b, 4096));
        var e = assertThrows(FileProblem.class, () -> bytes(shorter));
        assertEquals(f + ": changed while it was read (4096 bytes, not the 8192 checked)", e.getMessage());
        Files.write(f, modern(8192, 2 * MiB));
        e = assertThrows(FileProblem.class, () -> bytes(otherHeader));
        assertEquals(f + ": changed while it was read (its header is not the one checked)", e.getMessage());
    }

    @Test
    void aModernImageIsAcceptedAndPlacedAboveA2MiBBoundary() {
        byte[] b = modern(8192, 32 * MiB);
        ArmImage img = ArmImage.parse(b, SRC);
        assertEquals(SRC, img.source());
        assertEquals(0, img.textOffset());
        assertEquals(32 * MiB, img.imageSize());
        assertFalse(img.bigEndian());
        assertEquals(4, img.pageSizeKiB());
        assertTrue(img.placeAnywhere());
        assertFalse(img.gzipped());
        assertFalse(img.legacyHeader());
        assertEquals(32 * MiB, img.footprint());
        assertEquals(RAM, img.loadAddress(RAM));
        assertEquals(RAM + 2 * MiB, img.loadAddress(RAM + 4096));     // next 2 MiB boundary
        assertEquals(RAM + 32 * MiB, img.endAddress(RAM));
        assertTrue(img.toString().contains("text_offset=0x0"), img.toString());
    }

    @Test
    void textOffsetIsAddedToTheAlignedBase() {
        ArmImage img = ArmImage.parse(image(4096, 0x80000, 16 * MiB, 0x2), SRC);
        assertEquals(RAM + 0x80000, img.loadAddress(RAM));
        assertFalse(img.placeAnywhere());
        assertEquals(16 * MiB + 0x80000, img.requiredRam(RAM));
    }

    @Test
    void pageSizeFlags() {
        assertEquals(0, ArmImage.parse(image(64, 0, 4096, 0 << 1), SRC).pageSizeKiB());
        assertEquals(4, ArmImage.parse(image(64, 0, 4096, 1 << 1), SRC).pageSizeKiB());
        assertEquals(16, ArmImage.parse(image(64, 0, 4096, 2 << 1), SRC).pageSizeKiB());
        assertEquals(64, ArmImage.parse(image(64, 0, 4096, 3 << 1), SRC).pageSizeKiB());
    }

    @Test
    void aGzipCompressedImageIsDecompressed() throws IOException {
        byte[] b = modern(100_000, 4 * MiB);
        ArmImage img = ArmImage.parse(gzip(b), SRC + ".gz");
        assertTrue(img.gzipped());
        assertArrayEquals(b, bytes(img));
        assertEquals(4 * MiB, img.imageSize());
    }

    @Test
    void aLegacyHeaderWithImageSizeZeroGetsTextOffset0x80000AndTheFileSize() {
        byte[] b = image(12345, 0, 0, 0xff0);   // old kernels: text_offset undefined-endian, flags unused
        ArmImage img = ArmImage.parse(b, SRC);
        assertTrue(img.legacyHeader());
        assertEquals(0x80000, img.textOffset());
        assertEquals(12345, img.imageSize());
        assertEquals(0, img.flags());
        assertEquals(RAM + 0x80000, img.loadAddress(RAM));
    }

    @Test
    void bigEndianImagesAreRefused() {
        rejected(Reason.BIG_ENDIAN, () -> ArmImage.parse(image(4096, 0, 4 * MiB, 0xb), SRC),
                SRC, "big-endian", "CONFIG_CPU_BIG_ENDIAN=n");
        // a legacy big-endian kernel: image_size 0, text_offset 0x80000 stored big-endian
        rejected(Reason.BIG_ENDIAN, () -> ArmImage.parse(image(4096, Long.reverseBytes(0x80000), 0, 0), SRC),
                "big-endian");
    }

    @Test
    void randomDataIsNotAnArm64Image() {
        byte[] b = new byte[4096];
        new Random(1).nextBytes(b);
        b[0] = 0;   // not gzip by chance
        rejected(Reason.NOT_ARM64_IMAGE, () -> ArmImage.parse(b, SRC), SRC, "not an arm64 Image", "ARM\\x64",
                "arch/arm64/boot/Image");
    }

    @Test
    void anElfVmlinuxIsNamedAsSuch() {
        byte[] b = new byte[4096];
        b[0] = 0x7f; b[1] = 'E'; b[2] = 'L'; b[3] = 'F';
        b[18] = (byte) 0xb7;
        rejected(Reason.NOT_ARM64_IMAGE, () -> ArmImage.parse(b, "vmlinux"), "vmlinux", "arm64 ELF", "Image");
        b[18] = 0x3e;
        rejected(Reason.NOT_ARM64_IMAGE, () -> ArmImage.parse(b, "vmlinux"), "x86-64 ELF");
        // shorter than the header but still recognisable
        rejected(Reason.NOT_ARM64_IMAGE, () -> ArmImage.parse(Arrays.copyOf(b, 20), "vmlinux"), "ELF");
    }

    @Test
    void anX86BzImageIsNamedAsSuch() {
        byte[] b = new byte[0x4000];
        b[0x1fe] = 0x55; b[0x1ff] = (byte) 0xaa;
        b[0x202] = 'H'; b[0x203] = 'd'; b[0x204] = 'r'; b[0x205] = 'S';
        rejected(Reason.NOT_ARM64_IMAGE, () -> ArmImage.parse(b, "bzImage"), "bzImage", "x86 bzImage",
                "arm64 kernel Image");
    }

    @Test
    void otherCompressionsAndZbootSaySoAndHowToFixIt() {
        byte[] xz = {(byte) 0xfd, '7', 'z', 'X', 'Z', 0, 0, 0, 0, 0};
        rejected(Reason.NOT_ARM64_IMAGE, () -> ArmImage.parse(xz, "Image.xz"), "compressed with xz", "gzip");
        byte[] zst = Arrays.copyOf(new byte[] {0x28, (byte) 0xb5, 0x2f, (byte) 0xfd}, 200);
        rejected(Reason.NOT_ARM64_IMAGE, () -> ArmImage.parse(zst, "Image.zst"), "compressed with zstd");
        byte[] zboot = new byte[4096];
        zboot[0] = 'M'; zboot[1] = 'Z'; zboot[4] = 'z'; zboot[5] = 'i'; zboot[6] = 'm'; zboot[7] = 'g';
        rejected(Reason.NOT_ARM64_IMAGE, () -> ArmImage.parse(zboot, "vmlinuz.efi"), "EFI zboot",
                "CONFIG_EFI_ZBOOT");
    }

    @Test
    void shorterThanTheHeaderIsTruncated() {
        rejected(Reason.TRUNCATED, () -> ArmImage.parse(Arrays.copyOf(modern(4096, MiB), 63), SRC),
                SRC, "63 bytes", "64-byte");
        rejected(Reason.TRUNCATED, () -> ArmImage.parse(new byte[0], SRC), "0 bytes");
    }

    @Test
    void shorterThanItsPeHeaderSaysIsTruncated() throws IOException {
        byte[] ok = withPe(modern(0x3000, 4 * MiB), 0x3000);
        assertEquals(0x3000, ArmImage.parse(ok, SRC).kernel().size());
        byte[] cut = Arrays.copyOf(ok, 0x2800);
        rejected(Reason.TRUNCATED, () -> ArmImage.parse(cut, SRC), SRC, "10240 bytes", "says 12288", "copy it again");
        byte[] tableCut = Arrays.copyOf(ok, 0x50);   // the section table itself is missing
        rejected(Reason.TRUNCATED, () -> ArmImage.parse(tableCut, SRC), "PE/COFF");
    }

    @Test
    void aCutOffOrCorruptGzipStreamIsReported() throws IOException {
        byte[] gz = gzip(modern(100_000, MiB));
        rejected(Reason.TRUNCATED, () -> ArmImage.parse(Arrays.copyOf(gz, gz.length / 2), "Image.gz"),
                "Image.gz", "gzip stream ends early");
        byte[] bad = gz.clone();
        bad[2] = 9;   // compression method other than deflate
        rejected(Reason.BAD_GZIP, () -> ArmImage.parse(bad, "Image.gz"), "corrupt gzip");
        byte[] gzOfJunk = gzip(new byte[] {1, 2, 3});
        rejected(Reason.TRUNCATED, () -> ArmImage.parse(gzOfJunk, "Image.gz"), "decompressed image has 3 bytes");
    }

    @Test
    void implausibleHeaderFieldsAreRefused() {
        rejected(Reason.BAD_HEADER, () -> ArmImage.parse(image(4096, 0x80001, MiB, 0xa), SRC), "text_offset 0x80001");
        rejected(Reason.BAD_HEADER, () -> ArmImage.parse(image(4096, 2 * MiB, MiB, 0xa), SRC), "text_offset 0x200000");
        rejected(Reason.BAD_HEADER, () -> ArmImage.parse(image(4096, 0, -4096, 0xa), SRC), "image_size");
    }

    @Test
    void sizeCapsApplyToTheFileAndToWhatItDecompressesTo() throws IOException {
        rejected(Reason.TOO_LARGE, () -> ArmImage.parse(modern(4096, MiB), SRC, 1024), "4096 bytes");
        byte[] bomb = gzip(modern((int) (8 * MiB), 8 * MiB));
        assertTrue(bomb.length < MiB);
        rejected(Reason.TOO_LARGE, () -> ArmImage.parse(bomb, "Image.gz", MiB), "decompresses to more than");
    }

    @Test
    void checkFitsSaysHowMuchRamTheKernelNeeds() {
        ArmImage img = ArmImage.parse(modern(8192, 32 * MiB), SRC);
        img.checkFits(RAM, 32 * MiB);
        img.checkFits(RAM, 512 * MiB);
        rejected(Reason.DOES_NOT_FIT_RAM, () -> img.checkFits(RAM, 16 * MiB), SRC, "needs 32 MiB",
                "has 16 MiB", "at least 32 MiB");
        // an unaligned RAM base costs the distance to the next 2 MiB boundary
        rejected(Reason.DOES_NOT_FIT_RAM, () -> img.checkFits(RAM + MiB, 32 * MiB), "needs 33 MiB");
        img.checkFits(RAM + MiB, 33 * MiB);
        // the file counts when it is larger than image_size (e.g. an appended signature)
        assertEquals(8192, ArmImage.parse(modern(8192, 4096), SRC).footprint());
    }

    @Test
    void readNamesMissingAndDirectoryPaths(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("Image");
        byte[] b = modern(4096, MiB);
        Files.write(f, b);
        ArmImage img = ArmImage.read(f);
        assertEquals(f.toString(), img.source());
        assertArrayEquals(b, bytes(img));
        Path gz = dir.resolve("Image.gz");
        Files.write(gz, gzip(b));
        assertArrayEquals(b, bytes(ArmImage.read(gz)));
        rejected(Reason.UNREADABLE, () -> ArmImage.read(dir.resolve("nope")), "nope", "no such file");
        rejected(Reason.UNREADABLE, () -> ArmImage.read(dir), "is a directory");
        rejected(Reason.TOO_LARGE, () -> ArmImage.read(f, 100), "the file has 4096 bytes");
    }

    @Test
    void readRefusesWhatIsNoFileAtOnce() {
        assertTimeoutPreemptively(java.time.Duration.ofSeconds(10),
                () -> rejected(Reason.UNREADABLE, () -> ArmImage.read(Path.of("/dev/zero")), "/dev/zero", "is a character device"));
    }
}
