package org.jkvm.vmm.arch.aarch64;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.jkvm.vmm.FuzzInput;
import org.jkvm.vmm.arch.aarch64.image.ArmImage;
import org.jkvm.vmm.arch.aarch64.image.BadKernelImageException;
import org.junit.jupiter.api.Tag;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Where a kernel, an initrd and the device tree go, for any Image header the loader accepts, any
 * initrd a byte array can hold and any whole number of MiB of RAM (what VmConfig lets through):
 * either an {@link IllegalArgumentException} saying how much RAM would do, or three regions in RAM
 * that do not overlap, the initrd page-aligned. Input, little-endian: text_offset u64, image_size
 * u64, flags u64 (the Image header's), the Image's length - 64 u16, RAM in MiB u32 (22 bits used),
 * the initrd's size u32 (31 bits used).
 */
@Tag("unit")
@Tag("fuzz")
class BootLayoutFuzzTest {
    private static final long PAGE = 4096;

    @FuzzTest(maxDuration = "30s")
    void place(byte[] data) {
        var in = new FuzzInput(data);
        ArmImage image;
        try {
            image = ArmImage.parse(header(in.u64(), in.u64(), in.u64(), ArmImage.HEADER_SIZE + in.u16()), "Image");
        } catch (BadKernelImageException e) {
            return;    // ArmImageFuzzTest's business
        }
        long ram = (in.u32() & 0x3f_ffffL) << 20;
        long initrdSize = in.u32() & 0x7fff_ffffL;
        BootLayout boot;
        try {
            boot = BootLayout.place(image, initrdSize, ram);
        } catch (IllegalArgumentException e) {
            assertTrue(e.getMessage().contains("M or more"), e.getMessage());
            return;
        }
        String what = boot + " for " + image + ", initrd " + initrdSize + ", RAM " + ram;
        assertEquals(image.loadAddress(Arm64Layout.RAM_BASE), boot.kernel(), what);
        assertTrue(boot.kernel() >= Arm64Layout.RAM_BASE, what);
        assertTrue(image.endAddress(Arm64Layout.RAM_BASE) <= boot.initrd(), what);
        assertEquals(0, boot.initrd() % PAGE, what);
        assertTrue(boot.initrd() + initrdSize <= boot.fdt(), what);
        assertEquals(Arm64Layout.RAM_BASE + ram, boot.fdt() + Arm64Layout.FDT_MAX, what);
        assertEquals(0, boot.fdt() % 8, what);
    }

    /** An Image of {@code length} bytes with the given header fields and the arm64 magic. */
    private static byte[] header(long textOffset, long imageSize, long flags, int length) {
        byte[] b = new byte[length];
        ByteBuffer h = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        h.putLong(8, textOffset);
        h.putLong(16, imageSize);
        h.putLong(24, flags);
        h.putInt(56, ArmImage.MAGIC);
        return b;
    }
}
