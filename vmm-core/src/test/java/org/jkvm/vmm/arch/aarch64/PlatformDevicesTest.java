package org.jkvm.vmm.arch.aarch64;

import java.util.ArrayList;
import java.util.List;

import org.jkvm.vmm.arch.aarch64.fdt.DeviceTreeSpec;
import org.jkvm.vmm.bus.MmioBus;
import org.jkvm.vmm.bus.MmioDevice;
import org.jkvm.vmm.bus.MmioWindow;
import org.jkvm.vmm.devices.IrqLine;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** One declaration placing a device on the bus, wiring its SPI and giving the device tree its node. */
@Tag("unit")
class PlatformDevicesTest {
    private static final PlatformDevice SERIAL = new PlatformDevice("serial",
            new MmioWindow(0x0900_0000L, 0x1000, 8), 1, DeviceTreeSpec.Binding.NS16550A);

    /** Answers reads with the offset; raises its line on every write. */
    record Echo(IrqLine irq) implements MmioDevice {
        @Override
        public long read(int vcpu, long offset, int size) {
            return offset;
        }

        @Override
        public void write(int vcpu, long offset, int size, long value) {
            irq.set(true);
        }
    }

    MmioBus bus;
    List<String> raised;
    PlatformDevices devices;

    @BeforeEach
    void devices() {
        bus = new MmioBus();
        raised = new ArrayList<>();
        devices = new PlatformDevices(bus, spi -> high -> raised.add("SPI " + spi + (high ? " high" : " low")));
    }

    @Test
    void oneDeclarationGivesTheBusRangeTheInterruptAndTheTreeNode() {
        Echo serial = devices.add(SERIAL, Echo::new);

        assertEquals(7, bus.read(0, 0x0900_0007L, 1));
        assertEquals(0, bus.read(0, 0x0900_0008L, 1), "past the decoded bytes");
        assertEquals(1, bus.strayAccesses());
        bus.write(0, 0x0900_0000L, 1, 'x');
        assertEquals(List.of("SPI 1 high"), raised);
        assertEquals(List.of(new DeviceTreeSpec.Device(DeviceTreeSpec.Binding.NS16550A,
                new DeviceTreeSpec.Region(0x0900_0000L, 0x1000), 1)), devices.treeNodes());
        serial.irq().set(false);
        assertEquals(List.of("SPI 1 high", "SPI 1 low"), raised, "the device returned is the one placed");
    }

    @Test
    void nodesFollowTheOrderDevicesWereAddedIn() {
        devices.add(new PlatformDevice("second", MmioWindow.of(0x0a00_0000L, 0x200), 5, DeviceTreeSpec.Binding.NS16550A),
                Echo::new);
        devices.add(SERIAL, Echo::new);
        assertEquals(List.of("serial@a000000", "serial@9000000"),
                devices.treeNodes().stream().map(DeviceTreeSpec.Device::nodeName).toList());
    }

    @Test
    void overlappingWindowsAreRefusedNamingBothAndTheTreeIsUnchanged() {
        devices.add(SERIAL, Echo::new);
        PlatformDevice inPage = new PlatformDevice("other", MmioWindow.of(0x0900_0800L, 0x200), 2,
                DeviceTreeSpec.Binding.NS16550A);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> devices.add(inPage, Echo::new));
        assertEquals("MMIO range other [0x9000800..0x9000a00) overlaps serial [0x9000000..0x9001000)", e.getMessage());
        assertEquals(1, devices.treeNodes().size());
    }

    @Test
    void aSharedSpiIsRefusedNamingItsOwner() {
        devices.add(SERIAL, Echo::new);
        PlatformDevice sameSpi = new PlatformDevice("other", MmioWindow.of(0x0a00_0000L, 0x200), 1,
                DeviceTreeSpec.Binding.NS16550A);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> devices.add(sameSpi, Echo::new));
        assertEquals("other: SPI 1 is serial's already", e.getMessage());
        assertEquals(0, bus.read(0, 0x0a00_0000L, 4));
        assertEquals(1, bus.strayAccesses());
    }

    @Test
    void anSpiTheGicLacksIsRefusedBeforeAnythingIsPlaced() {
        PlatformDevice far = new PlatformDevice("far", MmioWindow.of(0x0a00_0000L, 0x200), 988,
                DeviceTreeSpec.Binding.NS16550A);
        assertThrows(IllegalArgumentException.class, () -> devices.add(far, Echo::new));
        assertEquals(0, bus.read(0, 0x0a00_0000L, 4));
        assertEquals(List.of(), devices.treeNodes());
    }
}
