package org.jkvm.vmm.virtio;

import org.jkvm.kvm.EventFd;

/**
 * A virtio device behind a {@link VirtioMmio} transport: what it offers and how it serves its
 * queues. {@link #serve} runs on the device's worker thread, never on a vCPU thread.
 */
public interface VirtioDevice extends AutoCloseable {
    /** The device type (virtio 1.2, 5): 1 for network, 2 for block, 3 for console, 4 for entropy, 19 for vsock. */
    int deviceId();

    /** Its name in logs and thread names, e.g. {@code virtio-blk0}. */
    String name();

    /** The feature bits it offers, VIRTIO_F_VERSION_1 among them. */
    long features();

    /** How many queues it has. */
    int queues();

    /** The most entries a queue may have. */
    default int queueMaxSize() {
        return 256;
    }

    /** Its configuration space, little-endian; reads past the end return 0. */
    default byte[] config() {
        return new byte[0];
    }

    /**
     * Serves what the driver made available on queue {@code index}; returns whether any chain was
     * used (so the driver is interrupted). A malformed chain is a {@link VirtioException}; a host
     * I/O failure is reported to the guest in the device's own way, never thrown.
     */
    boolean serve(int index, VirtQueue queue) throws VirtioException;

    /**
     * Called once by the transport before its worker starts: {@code wakeWorker} makes the worker
     * serve the queues again, for a device whose host side has something for the guest.
     */
    default void attach(Runnable wakeWorker) {}

    /**
     * Waits on the worker thread until there is work: the doorbell rang, or (for a device whose
     * host side has input of its own, a tap) that input arrived. Returns whether to serve the
     * queues; false when a signal interrupted the wait. Does not reset the doorbell.
     */
    default boolean awaitWork(EventFd doorbell) {
        return doorbell.await(-1);
    }

    /** The features the driver took, when it sets FEATURES_OK and the transport accepts them. */
    default void negotiated(long features) {}

    /** Forgets per-driver state when the driver resets the device; called with no queue being served. */
    default void reset() {}

    /** Releases host resources (files). */
    @Override
    default void close() {}
}
