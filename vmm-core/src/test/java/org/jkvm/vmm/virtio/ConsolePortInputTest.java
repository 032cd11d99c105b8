package org.jkvm.vmm.virtio;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.util.Arrays;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import org.jkvm.kvm.EventFd;
import org.jkvm.vmm.devices.ConsoleInput;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.jkvm.vmm.virtio.FakeRam.DATA;
import static org.jkvm.vmm.virtio.VirtQueue.DESC_F_WRITE;
import static org.jkvm.vmm.virtio.VirtioConsole.PORT0_RX;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Console input on hvc0: what {@link ConsoleInput} reads reaches port 0's receive buffers whole and
 * in order, waits (never dropped) while the guest posts none, and a feeder waiting on a guest that
 * never posts any is released when the device closes. The test plays the driver on port 0's
 * receive queue, serving it as the device's worker would.
 */
@Tag("unit")
class ConsolePortInputTest {
    private static final int SIZE = 16;
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(20);

    private final VirtioConsole device = new VirtioConsole("virtio-console", new ByteArrayOutputStream(), new ByteArrayOutputStream());
    private final FakeRam ram = new FakeRam(0x10000);
    private final ByteArrayOutputStream received = new ByteArrayOutputStream();
    private int offered;
    private int used;

    private static byte[] script(int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) b[i] = (byte) ('a' + i % 26 + i / 26 % 2 * ('A' - 'a'));
        return b;
    }

    /** Offers receive buffers of {@code length} bytes until {@link #SIZE} are outstanding, each slot at a fixed place. */
    private void offerBuffers(int length) {
        for (; offered - used < SIZE; offered++) {
            int slot = offered % SIZE;
            ram.descriptor(slot, DATA + 0x100L * slot, length, DESC_F_WRITE, 0);
            ram.offer(slot, SIZE);
        }
    }

    /** Collects what the device wrote into the buffers it used since the last call. */
    private void collect() {
        for (; used < ram.usedIndex(); used++) {
            long[] e = ram.usedEntry(used % SIZE);
            for (int i = 0; i < e[1]; i++) received.write(ram.get(DATA + 0x100L * e[0] + i));
        }
    }

    /** Plays driver and worker until {@code total} bytes have come, with buffers of {@code length} bytes. */
    private void drive(VirtQueue rx, int total, int length) throws VirtioException {
        long deadline = System.nanoTime() + TIMEOUT_NS;
        while (received.size() < total && System.nanoTime() < deadline) {
            offerBuffers(length);
            device.serve(PORT0_RX, rx);
            collect();
        }
    }

    private static void awaitWaiting(Thread t) throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT_NS;
        while (t.getState() != Thread.State.WAITING && t.isAlive() && System.nanoTime() < deadline) Thread.sleep(5);
        assertEquals(Thread.State.WAITING, t.getState(), "the feeder waits for the guest");
    }

    @Test
    void aLongStreamArrivesInOrderAcrossManySmallReceiveBuffers() throws Exception {
        byte[] in = script(20_000);
        VirtQueue rx = ram.queue(SIZE);
        Thread feeder = ConsoleInput.forward(new ByteArrayInputStream(in), device);
        drive(rx, in.length, 7);
        feeder.join(10_000);
        assertArrayEquals(in, received.toByteArray());
        assertTrue(used >= (in.length + 6) / 7, "no buffer got more than its 7 bytes: " + used + " used");
    }

    @Test
    void nothingIsLostWhileTheGuestPostsNoBuffers() throws Exception {
        byte[] in = script(10_000);
        VirtQueue rx = ram.queue(SIZE);
        assertFalse(device.serve(PORT0_RX, rx), "nothing to send");
        Thread feeder = ConsoleInput.forward(new ByteArrayInputStream(in), device);
        awaitWaiting(feeder);
        assertFalse(device.serve(PORT0_RX, rx), "no buffer to put it in");
        drive(rx, in.length, 64);
        feeder.join(10_000);
        assertArrayEquals(in, received.toByteArray());
    }

    @Test
    void aPostedBufferIsNotUsedBeforeInputComes() throws Exception {
        VirtQueue rx = ram.queue(SIZE);
        offerBuffers(64);
        assertFalse(device.serve(PORT0_RX, rx));
        assertEquals(0, ram.usedIndex(), "the driver's buffers wait for input");
        assertTrue(device.receiveAll("ls\n".getBytes()));
        assertTrue(device.serve(PORT0_RX, rx));
        collect();
        assertEquals("ls\n", received.toString());
    }

    @Test
    void closingTheDeviceReleasesAFeederTheGuestNeverServed() throws Exception {
        InputStream endless = new InputStream() {
            @Override
            public int read() {
                return 'y';
            }

            @Override
            public int read(byte[] b, int off, int len) {
                Arrays.fill(b, off, off + len, (byte) 'y');
                return len;
            }
        };
        Thread feeder = ConsoleInput.forward(endless, device);
        awaitWaiting(feeder);
        device.close();
        feeder.join(10_000);
        assertFalse(feeder.isAlive(), "the feeder ended with the device");
        assertFalse(device.receiveAll(new byte[] {'n'}), "a closed device takes no input");
    }

    /** Through the transport: input that comes after the buffers wakes the worker, which fills them without a notification. */
    @Test
    void inputWakesTheTransportsWorker() throws Exception {
        Semaphore interrupts = new Semaphore(0);
        try (EventFd doorbell = EventFd.create();
             VirtioMmio mmio = new VirtioMmio(device, ram, doorbell, interrupts::release)) {
            mmio.write(0, 0x70, 4, 1 | 2);
            mmio.write(0, 0x24, 4, 1);
            mmio.write(0, 0x20, 4, 1); // VIRTIO_F_VERSION_1
            mmio.write(0, 0x70, 4, 1 | 2 | 8);
            VirtioConsoleTest.setUpQueue(mmio, PORT0_RX, FakeRam.DESC, FakeRam.AVAIL, FakeRam.USED);
            offerBuffers(64);
            mmio.write(0, 0x70, 4, 1 | 2 | 8 | 4);
            assertTrue(device.receiveAll("root\n".getBytes()));
            assertTrue(interrupts.tryAcquire(10, TimeUnit.SECONDS), "the guest is interrupted");
            Thread.sleep(100); // the worker is back waiting: only the input can wake it
            assertTrue(device.receiveAll("jkvm\n".getBytes()));
            assertTrue(interrupts.tryAcquire(10, TimeUnit.SECONDS), "the input woke the worker");
            collect();
            assertEquals("root\njkvm\n", received.toString());
        }
    }
}
