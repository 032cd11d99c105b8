package org.jkvm.vmm.arch.aarch64;

/**
 * The guest physical memory map of jkvm's arm64 machine, in one place. Everything below RAM
 * is MMIO or a reserved region in a memslot of its own; the PV regions are 64 KiB aligned and
 * sized so they work on 4K and 64K-page hosts.
 */
public final class Arm64Layout {
    private Arm64Layout() {}

    /** GICv3 distributor (64 KiB). */
    public static final long GIC_DIST = 0x0800_0000L;
    /** GICv3 ITS (128 KiB). */
    public static final long GIC_ITS = 0x0808_0000L;
    /** The 16550 UART. */
    public static final long UART = 0x0900_0000L;
    /**
     * The UART's window: a 4 KiB page, the slot QEMU's virt and Firecracker give their UARTs and
     * the size the device tree states; the 16550 decodes its first 8 bytes.
     */
    public static final long UART_WINDOW = 0x1000L;
    /** The UART's interrupt, as an SPI number (INTID 32 + this). */
    public static final int UART_SPI = 1;
    /** PV steal-time structures, 64 bytes per vCPU. */
    public static final long PVTIME = 0x0A00_0000L;
    /** PV-lock structures, 64 bytes per vCPU. */
    public static final long PVLOCK = 0x0A10_0000L;
    /** Room each PV region has: 1 MiB, 16384 vCPUs of 64 bytes. */
    public static final long PV_REGION_SPAN = 0x10_0000L;
    /** The first virtio-mmio transport; the others follow every {@link #VIRTIO_STRIDE} bytes. */
    public static final long VIRTIO_MMIO = 0x0A20_0000L;
    /** The room each virtio-mmio transport has (its 0x200 bytes of registers in a 4 KiB page). */
    public static final long VIRTIO_STRIDE = 0x1000L;
    /** How many virtio-mmio transports the machine has room for. */
    public static final int VIRTIO_SLOTS = 32;
    /** The first virtio-mmio transport's SPI; the others follow one by one. */
    public static final int VIRTIO_FIRST_SPI = 16;
    /** GICv3 redistributors, 128 KiB per vCPU (64 MiB, up to 512 vCPUs). */
    public static final long GIC_REDIST = 0x1000_0000L;
    /** The most vCPUs the redistributor space holds. */
    public static final int MAX_VCPUS = 512;
    /** Guest RAM starts here (1 GiB, so 2 MiB aligned as the Image wants). */
    public static final long RAM_BASE = 0x4000_0000L;
    /** Where the device tree goes: the last 2 MiB of RAM (its maximum size). */
    public static final long FDT_MAX = 0x20_0000L;
    /** The 64 KiB granule the PV regions are sized in. */
    public static final long PV_GRANULE = 0x1_0000L;
    /** Bytes of one vCPU's PV structure (steal time and PV lock alike). */
    public static final long PV_STRUCT = 64;

    /** A PV region's size for {@code vcpus}: whole 64 KiB granules. */
    public static long pvRegionSize(int vcpus) {
        long bytes = vcpus * PV_STRUCT;
        return (bytes + PV_GRANULE - 1) / PV_GRANULE * PV_GRANULE;
    }
}
