package org.jkvm.vmm.arch.aarch64;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.IntFunction;

import org.jkvm.vmm.arch.aarch64.fdt.ArmDeviceTree;
import org.jkvm.vmm.arch.aarch64.fdt.DeviceTreeSpec;
import org.jkvm.vmm.bus.MmioBus;
import org.jkvm.vmm.bus.MmioDevice;
import org.jkvm.vmm.devices.IrqLine;

/**
 * The devices on jkvm's arm64 MMIO bus, kept as kvmtool keeps its device list: each is added
 * from one {@link PlatformDevice} declaration, which gives it its window on the {@link MmioBus}
 * and the line of its SPI, and from which its device-tree node comes ({@link #treeNodes}, for
 * {@link ArmDeviceTree}). Windows may not overlap and SPIs may not be shared.
 */
public final class PlatformDevices {
    private final MmioBus bus;
    private final IntFunction<IrqLine> spiLines;
    private final List<DeviceTreeSpec.Device> nodes = new ArrayList<>();
    private final Map<Integer, String> spiOwners = new HashMap<>();

    /** Devices placed on {@code bus}, whose interrupts go through {@code spiLines} (by SPI number). */
    public PlatformDevices(MmioBus bus, IntFunction<IrqLine> spiLines) {
        this.bus = bus;
        this.spiLines = spiLines;
    }

    /**
     * Adds the device {@code declaration} describes: {@code create} makes it, given the line of
     * its SPI; it is registered on the bus for its window and its node joins the tree. A window
     * overlapping another device's, or an SPI another device has, is refused naming both.
     *
     * @return the device made, for the VM to keep
     */
    public synchronized <D extends MmioDevice> D add(PlatformDevice declaration, Function<IrqLine, D> create) {
        DeviceTreeSpec.Device node = declaration.treeNode();
        String spiOwner = spiOwners.get(declaration.spi());
        if (spiOwner != null) {
            throw new IllegalArgumentException("%s: SPI %d is %s's already"
                    .formatted(declaration.name(), declaration.spi(), spiOwner));
        }
        D device = create.apply(spiLines.apply(declaration.spi()));
        bus.register(declaration.name(), declaration.window(), device);
        spiOwners.put(declaration.spi(), declaration.name());
        nodes.add(node);
        return device;
    }

    /** The devices' nodes, in the order they were added. */
    public synchronized List<DeviceTreeSpec.Device> treeNodes() {
        return List.copyOf(nodes);
    }
}
