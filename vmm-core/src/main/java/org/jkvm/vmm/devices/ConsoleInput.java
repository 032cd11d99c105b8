package org.jkvm.vmm.devices;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Feeds a stream (jkvm run's standard input) to a console device (the UART or hvc0) as the guest's
 * console input, on a daemon thread so a VM that ends while the stream still blocks (a terminal)
 * is not held up. Nothing is dropped: while the device's receive buffer is full, reading the
 * stream waits for the guest. The stream's end, a read error or the device's close ends the
 * forwarding; the guest then simply gets no more input.
 */
public final class ConsoleInput {
    private static final System.Logger LOG = System.getLogger(ConsoleInput.class.getName());

    private ConsoleInput() {}

    /** Starts forwarding {@code in} to {@code console}; returns the (daemon) thread doing it. */
    public static Thread forward(InputStream in, ConsoleReceiver console) {
        return Thread.ofPlatform().daemon().name("console-input").start(() -> {
            byte[] buf = new byte[512];
            try {
                for (int n; (n = in.read(buf)) > 0; ) {
                    if (!console.receiveAll(Arrays.copyOf(buf, n))) return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (IOException e) {
                LOG.log(System.Logger.Level.WARNING, "console input: reading standard input failed, the guest gets no more input", e);
            }
        });
    }
}
