package org.jkvm.vmm.devices;

import java.io.ByteArrayOutputStream;
import java.util.List;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.jkvm.vmm.FuzzInput;
import org.jkvm.vmm.devices.Uart16550Test.RecordingIrq;
import org.junit.jupiter.api.Tag;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A guest driving the 16550's registers in any order, with any access width and value, while the
 * host types at it: no access throws; every register reads as a byte; the transmitter is always
 * empty; the console gets exactly the bytes written to THR outside loopback and divisor-latch
 * mode, through the panic watcher as in a VM; the interrupt line only ever changes level.
 * Input: two bytes per step, an op and a value. Op bit 7 writes, bits 0-2 are the register,
 * bits 3-4 the width (1, 2, 4, 8 bytes); bits 5-6 both set make the step host input of the value
 * instead.
 */
@Tag("unit")
@Tag("fuzz")
class Uart16550FuzzTest {
    private static final int THR = 0, LCR = 3, MCR = 4, LSR = 5;
    private static final int LCR_DLAB = 0x80, MCR_LOOP = 0x10, LSR_THRE_TEMT = 0x60;
    private static final String PANIC_MARK = "Kernel panic - not syncing";

    @FuzzTest(maxDuration = "30s")
    void registers(byte[] data) {
        var console = new ByteArrayOutputStream();
        var expected = new ByteArrayOutputStream();
        var watcher = new PanicWatcher(console);
        var irq = new RecordingIrq();
        var uart = new Uart16550(watcher, irq);
        int lcr = 0, mcr = 0;
        var in = new FuzzInput(data);
        while (in.more()) {
            int op = in.u8(), value = in.u8();
            int reg = op & 7;
            int width = 1 << (op >> 3 & 3);
            if ((op & 0x60) == 0x60) {
                uart.receive(new byte[] {(byte) value});
            } else if ((op & 0x80) != 0) {
                uart.write(0, reg, width, value * 0x0101_0101_0101_0101L);
                if (reg == THR && (lcr & LCR_DLAB) == 0 && (mcr & MCR_LOOP) == 0) expected.write(value);
                if (reg == LCR) lcr = value;
                if (reg == MCR) mcr = value & 0x1f;
            } else {
                long v = uart.read(0, reg, width);
                assertTrue(v >= 0 && v <= 0xff, "register " + reg + " read 0x" + Long.toHexString(v));
                if (reg == LSR) assertEquals(LSR_THRE_TEMT, v & LSR_THRE_TEMT, "LSR 0x" + Long.toHexString(v));
            }
        }
        uart.flush();
        assertArrayEquals(expected.toByteArray(), console.toByteArray());
        String panic = watcher.panic();
        assertTrue(panic == null || panic.startsWith(PANIC_MARK), panic);
        List<Boolean> levels = irq.calls;
        for (int i = 0; i < levels.size(); i++) {
            assertNotEquals(i == 0 ? Boolean.FALSE : levels.get(i - 1), levels.get(i), "IRQ line set to the level it had: " + levels);
        }
    }
}
