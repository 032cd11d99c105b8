package org.jkvm.vmm.arch.aarch64.image;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Set;
import java.util.zip.GZIPOutputStream;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.jkvm.vmm.arch.aarch64.Arm64Layout;
import org.jkvm.vmm.arch.aarch64.image.BadKernelImageException.Reason;
import org.junit.jupiter.api.Tag;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Any bytes as a kernel Image, plain and gzip-compressed: either a {@link BadKernelImageException}
 * whose message names the source, or an image whose header fields are in the ranges the loader
 * relies on and whose placement arithmetic does not overflow. Inputs are the file's bytes.
 */
@Tag("unit")
@Tag("fuzz")
class ArmImageFuzzTest {
    private static final Set<Integer> PAGE_SIZES = Set.of(0, 4, 16, 64);
    /** A cap on what the gzip-compressed input may decompress to, so the size check is reached. */
    private static final long GZ_CAP = 2048;

    @FuzzTest(maxDuration = "30s")
    void parse(byte[] data) {
        check(data, "Image", ArmImage.DEFAULT_MAX_BYTES);
        check(gzip(data), "Image.gz", GZ_CAP);
    }

    private static void check(byte[] data, String source, long cap) {
        ArmImage image;
        try {
            image = ArmImage.parse(data, source, cap);
        } catch (BadKernelImageException e) {
            assertTrue(e.getMessage().startsWith("kernel image " + source + ": "), e.getMessage());
            return;
        }
        assertEquals(0, image.textOffset() & 0xfff, image.toString());
        assertTrue(image.textOffset() >= 0 && image.textOffset() < ArmImage.BASE_ALIGN, image.toString());
        assertTrue(image.imageSize() >= 0 && image.imageSize() <= 4L << 30, image.toString());
        assertTrue(image.footprint() >= image.kernel().size(), image.toString());
        assertTrue(PAGE_SIZES.contains(image.pageSizeKiB()), image.toString());
        long load = image.loadAddress(Arm64Layout.RAM_BASE);
        assertEquals(Arm64Layout.RAM_BASE + image.textOffset(), load, image.toString());
        assertTrue(image.endAddress(Arm64Layout.RAM_BASE) >= load + image.kernel().size(), image.toString());
        try {
            image.checkFits(Arm64Layout.RAM_BASE, 64L << 20);
        } catch (BadKernelImageException e) {
            assertEquals(Reason.DOES_NOT_FIT_RAM, e.reason(), e.getMessage());
        }
        image.release().ifPresent(r -> assertTrue(!r.isEmpty() && r.length() <= 64, r));
    }

    private static byte[] gzip(byte[] data) {
        var out = new ByteArrayOutputStream();
        try (var gz = new GZIPOutputStream(out)) {
            gz.write(data);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
