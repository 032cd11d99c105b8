package org.jkvm.vmm.arch.aarch64.image;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The real Debian arm64 kernel that guest/build produces, plain and gzip-compressed. Skipped
 * (with a message) when the fixture has not been built. The paths come from the system
 * properties jkvm.guest.image / jkvm.guest.image.gz / jkvm.guest.initrd, the environment variables
 * JKVM_GUEST_IMAGE / JKVM_GUEST_IMAGE_GZ / JKVM_GUEST_INITRD (guest/build prints them), or guest/build's cache
 * (${JKVM_CACHE:-~/.cache/jkvm}/guest/current/).
 */
@Tag("unit")
class DebianGuestImageTest {
    static final long RAM = 0x4000_0000L;

    static Path fixture(String property, String env, String name) {
        String p = System.getProperty(property);
        if (p == null || p.isBlank()) {
            p = System.getenv(env);
        }
        if (p == null || p.isBlank()) {
            String cache = System.getenv("JKVM_CACHE");
            Path root = cache != null && !cache.isBlank() ? Path.of(cache)
                    : Path.of(System.getProperty("user.home"), ".cache", "jkvm");
            p = root.resolve("guest").resolve("current").resolve(name).toString();
        }
        Path path = Path.of(p);
        assumeTrue(Files.isRegularFile(path),
                "guest fixture " + path + " is missing: run guest/build (or set " + env + ")");
        return path;
    }

    static void looksLikeDebians(ArmImage img) throws IOException {
        assertEquals(0, img.textOffset(), "text_offset of a 5.8+ kernel");
        assertFalse(img.bigEndian());
        assertFalse(img.legacyHeader());
        assertEquals(4, img.pageSizeKiB());
        assertTrue(img.placeAnywhere());
        assertTrue(img.imageSize() >= img.kernel().size(), img.toString());
        assertTrue(img.kernel().size() > 8 << 20, img.toString());
        assertEquals(RAM, img.loadAddress(RAM));
        img.checkFits(RAM, 512L << 20);
    }

    @Test
    void theDebianImageParses() throws IOException {
        Path path = fixture("jkvm.guest.image", "JKVM_GUEST_IMAGE", "Image");
        ArmImage img = ArmImage.read(path);
        assertFalse(img.gzipped());
        looksLikeDebians(img);
        // guest/build's manifest records the release from the package; the banner must agree
        Path manifest = path.resolveSibling("manifest");
        String release = img.release().orElseThrow(() -> new AssertionError("no banner in " + path));
        assertTrue(release.matches("6\\.12\\.\\d+\\+deb12-arm64"), release);
        if (Files.isRegularFile(manifest)) {
            assertTrue(Files.readAllLines(manifest).contains("kernel-release " + release), release + " vs " + manifest);
        }
        // its EFI stub's PE/COFF header gives the file size: a cut-off copy is caught
        byte[] whole = ArmImageTest.bytes(img);
        byte[] cut = Arrays.copyOf(whole, whole.length - 4096);
        var e = assertThrows(BadKernelImageException.class, () -> ArmImage.parse(cut, "Image(cut)"));
        assertEquals(BadKernelImageException.Reason.TRUNCATED, e.reason(), e.getMessage());
    }

    @Test
    void theInitramfsIsNotAKernel() throws IOException {
        Path initrd = fixture("jkvm.guest.initrd", "JKVM_GUEST_INITRD", "initramfs.cpio.gz");
        var e = assertThrows(BadKernelImageException.class, () -> ArmImage.read(initrd));
        assertTrue(e.getMessage().contains("cpio archive"), e.getMessage());
    }

    @Test
    void theGzipCompressedDebianImageParsesToTheSameBytes() throws IOException {
        Path gzPath = fixture("jkvm.guest.image.gz", "JKVM_GUEST_IMAGE_GZ", "Image.gz");
        Path plainPath = fixture("jkvm.guest.image", "JKVM_GUEST_IMAGE", "Image");
        ArmImage gz = ArmImage.read(gzPath);
        assertTrue(gz.gzipped());
        looksLikeDebians(gz);
        ArmImage plain = ArmImage.read(plainPath);
        assertTrue(Arrays.equals(ArmImageTest.bytes(plain), ArmImageTest.bytes(gz)), "Image.gz does not decompress to Image");
        assertEquals(plain.imageSize(), gz.imageSize());
    }
}
