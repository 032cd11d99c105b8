package org.jkvm.vmm.arch.aarch64;

import java.io.IOException;
import java.nio.file.Path;

import org.jkvm.vmm.arch.aarch64.image.ArmImage;
import org.jkvm.vmm.config.SettingException;
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

    /**
     * Reads the kernel Image at {@code file} and checks it fits in {@code ramSize} bytes of RAM:
     * what booting it needs first, and what a spec check asks before any boot.
     *
     * @throws org.jkvm.vmm.arch.aarch64.image.BadKernelImageException naming the file, the problem and the fix
     */
    public static ArmImage readKernel(Path file, long ramSize) throws IOException {
        ArmImage image = ArmImage.read(file);
        image.checkFits(Arm64Layout.RAM_BASE, ramSize);
        return image;
    }

    /**
     * Places an image and an initrd of {@code initrdSize} bytes in {@code ramSize} bytes of RAM.
     *
     * @throws SettingException for "memory" when they do not fit, saying how much would do
     */
    public static BootLayout place(ArmImage image, long initrdSize, long ramSize) {
        long kernel = image.loadAddress(Arm64Layout.RAM_BASE);
        long kernelEnd = image.endAddress(Arm64Layout.RAM_BASE);
        long fdt = Arm64Layout.RAM_BASE + ramSize - Arm64Layout.FDT_MAX;
        long initrd = (fdt - initrdSize) / PAGE * PAGE;
        if (initrd < kernelEnd) {
            long need = kernelEnd - Arm64Layout.RAM_BASE + initrdSize + Arm64Layout.FDT_MAX + PAGE;
            throw new SettingException("memory", Sizes.format(ramSize), "the kernel (" + Sizes.format(image.footprint())
                    + " in memory), the initrd (" + Sizes.format(initrdSize) + ") and the device tree need more: give "
                    + ((need >> 20) + 64) + "M or more");
        }
        return new BootLayout(kernel, initrd, fdt);
    }
}
