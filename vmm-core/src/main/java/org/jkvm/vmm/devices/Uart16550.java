package org.jkvm.vmm.devices;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;

import org.jkvm.vmm.bus.MmioDevice;

/**
 * A 16550A UART on MMIO (one byte per register, reg-shift 0): what the guest writes to THR
 * goes to {@code out} at once, so the transmitter is always empty; bytes given to
 * {@link #receive} wait in the receive buffer. Its interrupt follows the 16550's rules: the
 * THR-empty interrupt (which Linux's 8250 driver needs to keep sending, or output stops short)
 * is pending after each transmit and when enabled, and is cleared by reading IIR or writing
 * THR; received data raises its interrupt while any is buffered. Loopback mode (MCR bit 4)
 * sends THR back to RBR, as the driver's probe expects. Shared by all vCPUs: synchronised.
 */
public final class Uart16550 implements MmioDevice, ConsoleReceiver {
    /** Bytes of MMIO space the device decodes. */
    public static final long SIZE = 8;

    private static final int RBR_THR = 0, IER = 1, IIR_FCR = 2, LCR = 3, MCR = 4, LSR = 5, MSR = 6, SCR = 7;
    private static final int IER_RDI = 0x01, IER_THRI = 0x02;
    private static final int IIR_NONE = 0x01, IIR_THRI = 0x02, IIR_RDI = 0x04, IIR_FIFO = 0xc0;
    private static final int LCR_DLAB = 0x80;
    private static final int MCR_LOOP = 0x10;
    private static final int LSR_DR = 0x01, LSR_THRE = 0x20, LSR_TEMT = 0x40;
    private static final int MSR_DCD = 0x80, MSR_DSR = 0x20, MSR_CTS = 0x10;
    private static final int RX_LIMIT = 4096;

    private final OutputStream out;
    private final IrqLine irq;
    private final ArrayDeque<Byte> rx = new ArrayDeque<>();
    private int ier, lcr, mcr, scr, fcr, dll = 12, dlm;
    private boolean thriPending;
    private boolean level;

    /** A UART writing the guest's output to {@code out} and driving {@code irq}. */
    public Uart16550(OutputStream out, IrqLine irq) {
        this.out = out;
        this.irq = irq;
    }

    /** Queues bytes for the guest to read (console input); drops what exceeds the buffer. */
    public synchronized void receive(byte[] data) {
        for (byte b : data) if (rx.size() < RX_LIMIT) rx.add(b);
        update();
    }

    /**
     * Queues all of {@code data} for the guest, waiting while the receive buffer is full, so a
     * stream longer than the buffer (a script piped to jkvm) loses nothing to a guest that reads
     * it slowly; a guest that never reads keeps the caller waiting. Always returns true.
     */
    @Override
    public synchronized boolean receiveAll(byte[] data) throws InterruptedException {
        for (byte b : data) {
            while (rx.size() >= RX_LIMIT) {
                update();
                wait();
            }
            rx.add(b);
        }
        update();
        return true;
    }

    @Override
    public synchronized long read(int vcpu, long offset, int size) {
        int v = switch ((int) offset) {
            case RBR_THR -> (lcr & LCR_DLAB) != 0 ? dll : readRbr();
            case IER -> (lcr & LCR_DLAB) != 0 ? dlm : ier;
            case IIR_FCR -> readIir();
            case LCR -> lcr;
            case MCR -> mcr;
            case LSR -> LSR_THRE | LSR_TEMT | (rx.isEmpty() ? 0 : LSR_DR);
            case MSR -> (mcr & MCR_LOOP) != 0 ? loopbackMsr() : MSR_DCD | MSR_DSR | MSR_CTS;
            case SCR -> scr;
            default -> 0;
        };
        update();
        return v;
    }

    @Override
    public synchronized void write(int vcpu, long offset, int size, long value) {
        int v = (int) value & 0xff;
        switch ((int) offset) {
            case RBR_THR -> {
                if ((lcr & LCR_DLAB) != 0) dll = v;
                else transmit(v);
            }
            case IER -> {
                if ((lcr & LCR_DLAB) != 0) {
                    dlm = v;
                } else {
                    // enabling the THR-empty interrupt with THR empty raises it at once
                    if ((v & IER_THRI) != 0 && (ier & IER_THRI) == 0) thriPending = true;
                    ier = v & 0x0f;
                }
            }
            case IIR_FCR -> fcr = v;
            case LCR -> lcr = v;
            case MCR -> mcr = v & 0x1f;
            case SCR -> scr = v;
            default -> { }
        }
        update();
    }

    private int readRbr() {
        Byte b = rx.poll();
        if (b == null) return 0;
        notifyAll(); // room for receiveAll
        return b & 0xff;
    }

    private int readIir() {
        int fifo = (fcr & 0x01) != 0 ? IIR_FIFO : 0;
        if ((ier & IER_RDI) != 0 && !rx.isEmpty()) return IIR_RDI | fifo;
        if ((ier & IER_THRI) != 0 && thriPending) {
            thriPending = false; // reading IIR that reports it clears it
            return IIR_THRI | fifo;
        }
        return IIR_NONE | fifo;
    }

    private int loopbackMsr() {
        return ((mcr & 0x01) << 5) | ((mcr & 0x02) << 3) | ((mcr & 0x04) << 4) | ((mcr & 0x08) << 4);
    }

    private void transmit(int b) {
        if ((mcr & MCR_LOOP) != 0) {
            if (rx.size() < RX_LIMIT) rx.add((byte) b);
        } else {
            try {
                out.write(b);
                if (b == '\n') out.flush();
            } catch (IOException e) {
                throw new UncheckedIOException("console output failed", e);
            }
        }
        thriPending = true; // sent at once: the holding register is empty again
    }

    private void update() {
        boolean high = ((ier & IER_RDI) != 0 && !rx.isEmpty()) || ((ier & IER_THRI) != 0 && thriPending);
        if (high != level) {
            level = high;
            irq.set(high);
        }
    }

    /** Flushes what the guest wrote. */
    public synchronized void flush() {
        try {
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
