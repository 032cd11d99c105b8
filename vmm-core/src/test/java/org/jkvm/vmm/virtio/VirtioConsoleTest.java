package org.jkvm.vmm.virtio;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import org.jkvm.kvm.EventFd;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.jkvm.vmm.virtio.FakeRam.DATA;
import static org.jkvm.vmm.virtio.VirtQueue.DESC_F_WRITE;
import static org.jkvm.vmm.virtio.VirtioConsole.CONSOLE_PORT;
import static org.jkvm.vmm.virtio.VirtioConsole.CONTROL_RX;
import static org.jkvm.vmm.virtio.VirtioConsole.CONTROL_TX;
import static org.jkvm.vmm.virtio.VirtioConsole.DEVICE_ADD;
import static org.jkvm.vmm.virtio.VirtioConsole.DEVICE_READY;
import static org.jkvm.vmm.virtio.VirtioConsole.PORT0_TX;
import static org.jkvm.vmm.virtio.VirtioConsole.PORT1_TX;
import static org.jkvm.vmm.virtio.VirtioConsole.PORT_NAME;
import static org.jkvm.vmm.virtio.VirtioConsole.PORT_OPEN;
import static org.jkvm.vmm.virtio.VirtioConsole.PORT_READY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * virtio-console's control queues as Linux's virtio_console driver speaks them (the driver ready,
 * each port added, announced ready, told its role and that the host is connected), hostile
 * control messages, and the ports' output. Each queue lives in its own {@link FakeRam}.
 */
@Tag("unit")
class VirtioConsoleTest {
    private static final int SIZE = 16;
    private static final int BAD_ID = -1;

    private final ByteArrayOutputStream console = new ByteArrayOutputStream();
    private final ByteArrayOutputStream results = new ByteArrayOutputStream();
    private final VirtioConsole device = new VirtioConsole("virtio-console", console, results);
    private final FakeRam toDevice = new FakeRam(0x10000);
    private final FakeRam toDriver = new FakeRam(0x10000);
    private VirtQueue control;
    private VirtQueue answers;
    private int sent;
    private int offered;
    private int received;

    @BeforeEach
    void queues() throws VirtioException {
        control = toDevice.queue(SIZE);
        answers = toDriver.queue(SIZE);
    }

    /** One control message: the port, the event, the value and what follows (a name). */
    record Message(int id, int event, int value, String text) {}

    /** The driver puts a control message of {@code bytes} on the control transmit queue; the device serves it. */
    private boolean sendRaw(byte[] bytes) throws VirtioException {
        long at = DATA + 0x100L * sent;
        toDevice.put(at, bytes);
        toDevice.descriptor(sent, at, bytes.length, 0, 0);
        toDevice.offer(sent, SIZE);
        sent++;
        return device.serve(CONTROL_TX, control);
    }

    private boolean send(int id, int event, int value) throws VirtioException {
        return sendRaw(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt(id).putShort((short) event)
                .putShort((short) value).array());
    }

    /** The driver offers {@code n} receive buffers of 64 bytes on the control receive queue. */
    private void offerBuffers(int n) {
        for (int i = 0; i < n; i++, offered++) {
            toDriver.descriptor(offered, DATA + 0x100L * offered, 64, DESC_F_WRITE, 0);
            toDriver.offer(offered, SIZE);
        }
    }

    /** Serves the control receive queue and returns the messages the device put there since the last call. */
    private List<Message> receive() throws VirtioException {
        device.serve(CONTROL_RX, answers);
        List<Message> out = new ArrayList<>();
        for (; received < toDriver.usedIndex(); received++) {
            long[] entry = toDriver.usedEntry(received);
            byte[] b = new byte[(int) entry[1]];
            for (int i = 0; i < b.length; i++) b[i] = toDriver.get(DATA + 0x100L * entry[0] + i);
            ByteBuffer m = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
            out.add(new Message(m.getInt(0), m.getShort(4), m.getShort(6),
                    new String(b, 8, b.length - 8, StandardCharsets.US_ASCII)));
        }
        return out;
    }

    @Test
    void offersMultiportWithTwoPortsOnSixQueues() {
        assertEquals(3, device.deviceId());
        assertTrue((device.features() & VirtioConsole.F_MULTIPORT) != 0);
        assertEquals(6, device.queues());
        assertEquals(2, ByteBuffer.wrap(device.config()).order(ByteOrder.LITTLE_ENDIAN).getInt(4), "max_nr_ports");
    }

    @Test
    void theDriverReadyGetsBothPortsAddedAndEachReadyPortItsRoleAndTheHostConnected() throws VirtioException {
        offerBuffers(8);
        assertTrue(send(BAD_ID, DEVICE_READY, 1), "the message is used");
        assertEquals(List.of(new Message(0, DEVICE_ADD, 1, ""), new Message(1, DEVICE_ADD, 1, "")), receive());
        send(0, PORT_READY, 1);
        assertEquals(List.of(new Message(0, CONSOLE_PORT, 1, ""), new Message(0, PORT_OPEN, 1, "")), receive());
        send(1, PORT_READY, 1);
        assertEquals(List.of(new Message(1, PORT_NAME, 1, VirtioConsole.RESULTS_PORT), new Message(1, PORT_OPEN, 1, "")),
                receive());
        send(1, PORT_OPEN, 1);
        assertEquals(List.of(), receive(), "a program opening the port needs no answer");
    }

    @Test
    void answersWaitForTheDriversBuffersAndAResetForgetsThem() throws VirtioException {
        send(BAD_ID, DEVICE_READY, 1);
        assertFalse(device.serve(CONTROL_RX, answers), "no buffer to put them in");
        offerBuffers(1);
        assertEquals(List.of(new Message(0, DEVICE_ADD, 1, "")), receive());
        device.reset();
        offerBuffers(1);
        assertEquals(List.of(), receive(), "the second DEVICE_ADD was for the driver before the reset");
    }

    @Test
    void hostileControlMessagesAreUsedAndGetNoAnswer() throws VirtioException {
        offerBuffers(SIZE);
        assertTrue(sendRaw(new byte[] {1, 2, 3}), "a short message is used all the same");
        send(2, PORT_READY, 1);
        send(BAD_ID, PORT_READY, 1);
        send(0, PORT_READY, 0);
        send(BAD_ID, DEVICE_READY, 0);
        send(0, 99, 1);
        assertEquals(List.of(), receive());
        for (int i = 0; i < 10; i++) send(BAD_ID, DEVICE_READY, 1);
        assertEquals(SIZE, receive().size(), "answers beyond what a driver can ask for are dropped");
    }

    /**
     * Through the transport: the driver's DEVICE_READY on queue 3 is answered on queue 2, which the
     * worker served before it in the same pass, without another notification.
     */
    @Test
    void theTransportDeliversAnswersWithoutAnotherNotification() throws InterruptedException {
        FakeRam ram = new FakeRam(0x10000);
        long rxDesc = FakeRam.BASE + 0x8000, rxAvail = FakeRam.BASE + 0x9000, rxUsed = FakeRam.BASE + 0xa000;
        Semaphore interrupts = new Semaphore(0);
        try (EventFd doorbell = EventFd.create();
             VirtioMmio mmio = new VirtioMmio(device, ram, doorbell, interrupts::release)) {
            mmio.write(0, 0x70, 4, 1 | 2);
            mmio.write(0, 0x20, 4, VirtioConsole.F_MULTIPORT);
            mmio.write(0, 0x24, 4, 1);
            mmio.write(0, 0x20, 4, 1); // VIRTIO_F_VERSION_1
            mmio.write(0, 0x70, 4, 1 | 2 | 8);
            setUpQueue(mmio, CONTROL_RX, rxDesc, rxAvail, rxUsed);
            setUpQueue(mmio, CONTROL_TX, FakeRam.DESC, FakeRam.AVAIL, FakeRam.USED);
            for (int i = 0; i < 2; i++) ram.descriptorAt(rxDesc, i, DATA + 0x100L * i, 64, DESC_F_WRITE, 0);
            ram.put(rxAvail, new byte[] {0, 0, 2, 0, 0, 0, 1, 0});
            ram.put(DATA + 0x1000, new byte[] {-1, -1, -1, -1, DEVICE_READY, 0, 1, 0});
            ram.descriptor(0, DATA + 0x1000, 8, 0, 0);
            ram.offer(0, SIZE);
            mmio.write(0, 0x70, 4, 1 | 2 | 8 | 4); // DRIVER_OK rings the doorbell once
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (ram.get(rxUsed + 2) != 2 && System.nanoTime() < deadline) interrupts.tryAcquire(10, TimeUnit.MILLISECONDS);
            assertEquals(2, ram.get(rxUsed + 2), "both DEVICE_ADDs are in the driver's buffers");
            assertEquals(DEVICE_ADD, ram.get(DATA + 4));
            assertEquals(1, ram.get(DATA + 0x100));
        }
    }

    static void setUpQueue(VirtioMmio mmio, int index, long desc, long avail, long used) {
        mmio.write(0, 0x30, 4, index);
        mmio.write(0, 0x38, 4, SIZE);
        mmio.write(0, 0x80, 4, desc);
        mmio.write(0, 0x90, 4, avail);
        mmio.write(0, 0xa0, 4, used);
        mmio.write(0, 0x44, 4, 1);
    }

    @Test
    void eachPortsOutputGoesToItsStream() throws VirtioException {
        FakeRam port0 = new FakeRam(0x10000);
        FakeRam port1 = new FakeRam(0x10000);
        byte[] line = "hvc0 says hi\n".getBytes(StandardCharsets.US_ASCII);
        port0.put(DATA, line);
        port0.descriptor(0, DATA, line.length, 0, 0);
        port0.offer(0, SIZE);
        byte[] result = "RESULT 42\n".getBytes(StandardCharsets.US_ASCII);
        port1.put(DATA, result);
        port1.descriptor(0, DATA, result.length, 0, 0);
        port1.offer(0, SIZE);
        assertTrue(device.serve(PORT0_TX, port0.queue(SIZE)));
        assertTrue(device.serve(PORT1_TX, port1.queue(SIZE)));
        assertEquals("hvc0 says hi\n", console.toString(StandardCharsets.US_ASCII));
        assertEquals("RESULT 42\n", results.toString(StandardCharsets.US_ASCII));
        assertEquals(1, port1.usedIndex());
        assertEquals(0, port1.usedEntry(0)[1], "the device writes nothing back");
        assertFalse(device.serve(0, port0.queue(SIZE)), "without console input no receive buffer is taken");
    }
}
