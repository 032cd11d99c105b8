package org.jkvm.vmm.devices;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Standard input reaches the guest through the UART's receive buffer, in order, with its interrupt. */
@Tag("unit")
class ConsoleInputTest {
    private static final int RBR = 0, IER = 1, LSR = 5, IER_RDI = 0x01, LSR_DR = 0x01;

    @Test
    void everyByteOfTheStreamIsReadFromTheReceiveBufferAndRaisesTheInterrupt() throws Exception {
        var irq = new Uart16550Test.RecordingIrq();
        var uart = new Uart16550(new ByteArrayOutputStream(), irq);
        uart.write(0, IER, 1, IER_RDI);
        ConsoleInput.forward(new ByteArrayInputStream("root\njkvm\n".getBytes(StandardCharsets.US_ASCII)), uart).join(10_000);
        assertTrue(irq.high(), "received data raises the interrupt");
        StringBuilder read = new StringBuilder();
        while ((uart.read(0, LSR, 1) & LSR_DR) != 0) read.append((char) uart.read(0, RBR, 1));
        assertEquals("root\njkvm\n", read.toString());
    }

    @Test
    void aStreamLongerThanTheReceiveBufferArrivesWholeAsTheGuestReads() throws Exception {
        var uart = new Uart16550(new ByteArrayOutputStream(), new Uart16550Test.RecordingIrq());
        byte[] script = new byte[20_000];
        for (int i = 0; i < script.length; i++) script[i] = (byte) ('a' + i % 26);
        Thread t = ConsoleInput.forward(new ByteArrayInputStream(script), uart);
        ByteArrayOutputStream read = new ByteArrayOutputStream();
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (read.size() < script.length && System.nanoTime() < deadline) {
            if ((uart.read(0, LSR, 1) & LSR_DR) != 0) read.write((int) uart.read(0, RBR, 1));
        }
        t.join(10_000);
        assertArrayEquals(script, read.toByteArray());
    }

    @Test
    void aFailingStreamEndsTheForwardingWithoutInput() throws Exception {
        var uart = new Uart16550(new ByteArrayOutputStream(), new Uart16550Test.RecordingIrq());
        InputStream broken = new InputStream() {
            @Override
            public int read() throws IOException {
                throw new IOException("EIO");
            }
        };
        Thread t = ConsoleInput.forward(broken, uart);
        t.join(10_000);
        assertTrue(!t.isAlive() && t.isDaemon());
        assertEquals(0, uart.read(0, LSR, 1) & LSR_DR);
    }
}
