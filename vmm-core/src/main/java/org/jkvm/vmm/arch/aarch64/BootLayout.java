package org.jkvm.vmm.arch.aarch64;

import org.jkvm.vmm.arch.aarch64.image.ArmImage;
import org.jkvm.vmm.config.Sizes;

/**
 * Where the boot payload goes in RAM: the kernel at the 2 MiB-aligned RAM base plus its
 * text_offset, the device tree in the last 2 MiB, the initrd page-aligned just below it.
 *
 * @param kernel guest physical address of the kernel (its entry point)
 * @param initrd guest physical address of the initrd (meaningless without one)
 * @param fdt    guest physical address of the device tree
 */
public record BootLayout(long kernel, long initrd, long fdt) {
    private static final long PAGE = 4096;

    /** Places an image and an initrd of {@code initrdSize} bytes in {@code ramSize} bytes of RAM. */
    public static BootLayout place(ArmImage image, long initrdSize, long ramSize) {
        long kernel = image.loadAddress(Arm64Layout.RAM_BASE);
        long kernelEnd = image.endAddress(Arm64Layout.RAM_BASE);
        long fdt = Arm64Layout.RAM_BASE + ramSize - Arm64Layout.FDT_MAX;
        long initrd = (fdt - initrdSize) / PAGE * PAGE;
        if (initrd < kernelEnd) {
            long need = kernelEnd - Arm64Layout.RAM_BASE + initrdSize + Arm64Layout.FDT_MAX + PAGE;
            throw new IllegalArgumentException("the kernel (" + Sizes.format(image.footprint()) + " in memory), the initrd ("
                    + Sizes.format(initrdSize) + ") and the device tree need more than " + Sizes.format(ramSize)
                    + " of RAM: give --memory " + ((need >> 20) + 64) + "M or more");
        }
        return new BootLayout(kernel, initrd, fdt);
    }
}
