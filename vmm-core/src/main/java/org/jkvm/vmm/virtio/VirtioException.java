package org.jkvm.vmm.virtio;

/**
 * The guest broke the virtio protocol (a malformed descriptor chain, a queue outside its memory):
 * the device stops and asks to be reset (DEVICE_NEEDS_RESET). The guest's problem, never the VMM's.
 */
public final class VirtioException extends Exception {
    private static final long serialVersionUID = 1L;

    /** {@code message} says what the guest did wrong, with the index or address involved. */
    public VirtioException(String message) {
        super(message);
    }
}
