package org.jkvm.vmm.devices;

/** A level-triggered interrupt line a device drives. */
public interface IrqLine {
    /** Raises ({@code true}) or lowers the line. */
    void set(boolean high);
}
