package org.jkvm.vmm.virtio;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.lang.System.Logger.Level;

/**
 * What the guest writes to a console port, kept in memory for the front end to save when the run
 * ends, up to a limit: a guest writing without end cannot exhaust the VMM's heap, its bytes past
 * the limit are dropped (and logged once). Written by a device worker, read by another thread.
 */
public final class PortCapture extends OutputStream {
    private static final System.Logger LOG = System.getLogger(PortCapture.class.getName());

    private final String port;
    private final int limit;
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private long dropped;

    /** A capture of port {@code port} keeping at most {@code limit} bytes. */
    public PortCapture(String port, int limit) {
        this.port = port;
        this.limit = limit;
    }

    @Override
    public void write(int b) {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
        int kept = Math.min(len, limit - bytes.size());
        bytes.write(b, off, kept);
        if (kept < len && dropped == 0) {
            LOG.log(Level.WARNING, "port {0}: the guest wrote more than {1} bytes; the rest is dropped", port, limit);
        }
        dropped += len - kept;
    }

    /** What was kept so far. */
    public synchronized byte[] toByteArray() {
        return bytes.toByteArray();
    }
}
