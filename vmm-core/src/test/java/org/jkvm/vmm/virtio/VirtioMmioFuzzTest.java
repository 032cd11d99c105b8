package org.jkvm.vmm.virtio;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.jkvm.kvm.EventFd;
import org.jkvm.vmm.FuzzInput;
import org.junit.jupiter.api.Tag;

/**
 * A guest writing and reading the transport's registers with anything (offset, size, value):
 * nothing may escape {@link VirtioMmio#read} or {@link VirtioMmio#write}, whatever it selects,
 * negotiates or points the queues at. Input: triples of a register offset (u16, past the
 * window too), an access size (1, 2, 4 or 8) and a 64-bit value, read when the value's low bit
 * is set.
 */
@Tag("unit")
@Tag("fuzz")
class VirtioMmioFuzzTest {
    private static final int[] SIZES = {1, 2, 4, 8};

    @FuzzTest(maxDuration = "30s")
    void registers(byte[] data) {
        FakeRam ram = new FakeRam(0x10000);
        try (EventFd doorbell = EventFd.create()) {
            VirtioMmio mmio = new VirtioMmio(new VirtioRng("virtio-rng-fuzz"), ram, doorbell, () -> { });
            try {
                FuzzInput in = new FuzzInput(data);
                while (in.more()) {
                    int offset = in.u16() % (VirtioMmio.SIZE + 0x100);
                    int size = SIZES[in.u8() & 3];
                    long value = in.u64();
                    if ((value & 1) != 0) mmio.read(0, offset, size);
                    else mmio.write(0, offset, size, value);
                }
            } finally {
                mmio.close();
            }
        }
    }
}
