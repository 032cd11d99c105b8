package org.jkvm.vmm.virtio;

import java.security.SecureRandom;

/**
 * virtio-rng (virtio 1.2, 5.4): fills each writable buffer the driver offers with bytes from
 * the host's {@link SecureRandom} (on Linux its default, NativePRNG, reads /dev/urandom), at most {@link #MAX_BYTES} per request.
 */
public final class VirtioRng implements VirtioDevice {
    /** The most bytes one request gets, so a huge buffer cannot keep the worker busy. */
    static final int MAX_BYTES = 64 << 10;

    private final String name;
    private final SecureRandom random = new SecureRandom();

    /** An entropy device called {@code name}. */
    public VirtioRng(String name) {
        this.name = name;
    }

    @Override
    public int deviceId() {
        return 4;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long features() {
        return VirtioMmio.F_VERSION_1;
    }

    @Override
    public int queues() {
        return 1;
    }

    @Override
    public boolean serve(int index, VirtQueue queue) throws VirtioException {
        boolean used = false;
        for (DescriptorChain c = queue.next(); c != null; c = queue.next()) {
            int n = (int) Math.min(MAX_BYTES, c.writableBytes());
            byte[] bytes = new byte[n];
            random.nextBytes(bytes);
            queue.complete(c.head(), Buffers.copyIn(c.writable(), bytes));
            used = true;
        }
        return used;
    }
}
