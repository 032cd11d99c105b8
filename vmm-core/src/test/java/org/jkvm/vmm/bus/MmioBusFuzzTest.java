package org.jkvm.vmm.bus;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.jkvm.vmm.FuzzInput;
import org.jkvm.vmm.arch.aarch64.Arm64Layout;
import org.jkvm.vmm.bus.MmioBusTest.Recorder;
import org.junit.jupiter.api.Tag;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Guest accesses at any address with any width on a bus laid out as jkvm's arm64 machine lays
 * it out (the UART's 8 decoded bytes in a 4 KiB window; a device decoding its whole 0x200-byte
 * window, as a virtio-mmio transport would): none throws; an access a device decodes reaches it
 * at its offset with its width; every other one reads 0, is dropped and is counted.
 * Input: steps of an op u8, an address u64 where op bits 0-1 are 3, a delta u16, a width u8 and,
 * for writes (op bit 7), a value u64. Op bits 0-1 pick the address the delta (signed) is added
 * to: the UART's base, the other device's, 0, or the address in the step.
 */
@Tag("unit")
@Tag("fuzz")
class MmioBusFuzzTest {
    private static final long UART_TAG = 0x1_0000, OTHER_TAG = 0x2_0000;
    private static final long OTHER = 0x0a00_0000L, OTHER_SIZE = 0x200;
    private static final long UART_DECODED = 8;

    @FuzzTest(maxDuration = "30s")
    void accesses(byte[] data) {
        var bus = new MmioBus();
        var uart = new Recorder(UART_TAG);
        var other = new Recorder(OTHER_TAG);
        bus.register("uart", new MmioWindow(Arm64Layout.UART, Arm64Layout.UART_WINDOW, UART_DECODED), uart);
        bus.register("other", MmioWindow.of(OTHER, OTHER_SIZE), other);
        long strays = 0;
        var in = new FuzzInput(data);
        while (in.more()) {
            int op = in.u8();
            long base = switch (op & 3) {
                case 0 -> Arm64Layout.UART;
                case 1 -> OTHER;
                case 2 -> 0;
                default -> in.u64();
            };
            long address = base + (short) in.u16();
            int width = in.u8();
            String where = "0x" + Long.toHexString(address) + "/" + width;
            Recorder owner = null;
            long offset = 0;
            if (address - Arm64Layout.UART >= 0 && address - Arm64Layout.UART < UART_DECODED) {
                owner = uart;
                offset = address - Arm64Layout.UART;
            } else if (address - OTHER >= 0 && address - OTHER < OTHER_SIZE) {
                owner = other;
                offset = address - OTHER;
            }
            if (owner == null) strays++;
            int before = owner == null ? 0 : owner.log.size();
            if ((op & 0x80) != 0) {
                bus.write(1, address, width, in.u64());
            } else {
                assertEquals(owner == null ? 0 : owner.tag + offset, bus.read(1, address, width), where);
            }
            if (owner != null) {
                assertEquals(before + 1, owner.log.size(), where);
                assertTrue(owner.log.getLast().contains(" +0x" + Long.toHexString(offset) + "/" + width), where);
            }
            assertEquals(strays, bus.strayAccesses(), where);
        }
    }
}
