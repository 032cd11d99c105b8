package org.jkvm.vmm.devices;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Passes a guest's console output through and remembers the first kernel panic line it
 * carries, so a VM that resets after panicking (panic=-1) is reported as a panic.
 */
public final class PanicWatcher extends FilterOutputStream {
    private static final String MARK = "Kernel panic - not syncing";
    private static final int MAX_LINE = 1024;

    private final StringBuilder line = new StringBuilder();
    private volatile String panic;

    /** Watches what is written to {@code out}. */
    public PanicWatcher(OutputStream out) {
        super(out);
    }

    @Override
    public synchronized void write(int b) throws IOException {
        out.write(b);
        if (b == '\n') {
            if (panic == null) {
                int at = line.indexOf(MARK);
                if (at >= 0) panic = line.substring(at).strip();
            }
            line.setLength(0);
        } else if (line.length() < MAX_LINE) {
            line.append((char) (b & 0xff));
        }
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        for (int i = 0; i < len; i++) write(b[off + i]);
    }

    /** The panic line, or null if the guest has not panicked. */
    public String panic() {
        return panic;
    }
}
