package org.jkvm.vmm.bus;

/**
 * A device on the {@link MmioBus}. Offsets are relative to the device's base; sizes are 1, 2,
 * 4 or 8 bytes. Called on the vCPU thread that made the access: devices shared by vCPUs
 * synchronise themselves.
 */
public interface MmioDevice {
    /** The value a guest read of {@code size} bytes at {@code offset} returns. */
    long read(int vcpu, long offset, int size);

    /** A guest write of {@code size} bytes of {@code value} at {@code offset}. */
    void write(int vcpu, long offset, int size, long value);
}
