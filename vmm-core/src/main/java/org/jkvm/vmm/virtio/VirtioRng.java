package org.jkvm.vmm.virtio;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * virtio-rng (virtio 1.2, 5.4): fills each writable buffer the driver offers with bytes from the
 * host kernel's pool (/dev/urandom, read directly as for the device tree's rng-seed: SecureRandom
 * would set up the JDK's security providers first, ~1 s in the emulated arm64 host), at most
 * {@link #MAX_BYTES} per request.
 */
public final class VirtioRng implements VirtioDevice {
    /** The most bytes one request gets, so a huge buffer cannot keep the worker busy. */
    static final int MAX_BYTES = 64 << 10;

    private static final String URANDOM = "/dev/urandom";

    private final String name;
    private final FileInputStream urandom;

    /** An entropy device called {@code name}. */
    public VirtioRng(String name) {
        this.name = name;
        try {
            this.urandom = new FileInputStream(URANDOM);
        } catch (IOException e) {
            throw new UncheckedIOException(name + ": opening " + URANDOM, e);
        }
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
            byte[] bytes = read(n);
            queue.complete(c.head(), Buffers.copyIn(c.writable(), bytes));
            used = true;
        }
        return used;
    }

    private byte[] read(int n) {
        try {
            return urandom.readNBytes(n);
        } catch (IOException e) {
            // the transport turns it into DEVICE_NEEDS_RESET for the guest
            throw new UncheckedIOException(name + ": reading " + URANDOM, e);
        }
    }

    @Override
    public void close() {
        try {
            urandom.close();
        } catch (IOException e) {
            throw new UncheckedIOException(name + ": closing " + URANDOM, e);
        }
    }
}
