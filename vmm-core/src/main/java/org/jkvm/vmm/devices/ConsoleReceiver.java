package org.jkvm.vmm.devices;

/**
 * A console device's receive side, where {@link ConsoleInput} puts jkvm run's standard input: the
 * 16550 UART or the virtio-console's port 0 (hvc0), whichever the guest's kernel uses as its console.
 */
@FunctionalInterface
public interface ConsoleReceiver {
    /**
     * Queues all of {@code data} for the guest, in order, waiting while the device holds as much
     * as it buffers; returns false when the device is closed and takes no more input.
     */
    boolean receiveAll(byte[] data) throws InterruptedException;
}
