package org.jkvm.vmm.arch.aarch64;

import java.util.Objects;

import org.jkvm.vmm.arch.aarch64.fdt.DeviceTreeSpec;
import org.jkvm.vmm.bus.MmioWindow;

/**
 * A device on jkvm's arm64 MMIO bus, declared once: its name, its window, its interrupt and the
 * binding its device-tree node follows. {@link PlatformDevices} derives the rest from it: the bus
 * registration, the interrupt line the device drives, and the device-tree node. A virtio-mmio
 * transport is one more such declaration (a 0x200-byte window, an SPI, its binding).
 *
 * @param name    the device's name on the bus and in messages
 * @param window  where it sits; the device tree's {@code reg} states the whole window
 * @param spi     its interrupt as an SPI number (GIC INTID minus 32)
 * @param binding what the device tree says it is
 */
public record PlatformDevice(String name, MmioWindow window, int spi, DeviceTreeSpec.Binding binding) {
    /** Requires every part; the SPI is checked against the GIC when the node is made. */
    public PlatformDevice {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(window, "window");
        Objects.requireNonNull(binding, "binding");
    }

    /** The device's node: its binding, its whole window as {@code reg}, its SPI. */
    public DeviceTreeSpec.Device treeNode() {
        return new DeviceTreeSpec.Device(binding, new DeviceTreeSpec.Region(window.base(), window.size()), spi);
    }
}
