package org.jkvm.vmm.devices;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The 16550A as Linux's 8250 driver drives it: probe, set-up, transmit, receive, interrupts. */
@Tag("unit")
class Uart16550Test {
    static final int RBR = 0, THR = 0, DLL = 0, IER = 1, DLM = 1, IIR = 2, FCR = 2, LCR = 3, MCR = 4, LSR = 5,
            MSR = 6, SCR = 7;
    static final int IER_RDI = 0x01, IER_THRI = 0x02;
    static final int IIR_NO_INT = 0x01, IIR_THRI = 0x02, IIR_RDI = 0x04, IIR_ID_MASK = 0x0f;
    static final int LSR_DR = 0x01, LSR_THRE = 0x20, LSR_TEMT = 0x40;
    static final int MCR_DTR = 0x01, MCR_RTS = 0x02, MCR_OUT1 = 0x04, MCR_OUT2 = 0x08, MCR_LOOP = 0x10;
    static final int MSR_CTS = 0x10, MSR_DSR = 0x20, MSR_RI = 0x40, MSR_DCD = 0x80;

    /** An interrupt line that records every call. */
    static final class RecordingIrq implements IrqLine {
        final List<Boolean> calls = new ArrayList<>();

        @Override
        public synchronized void set(boolean high) {
            calls.add(high);
        }

        boolean high() {
            return !calls.isEmpty() && calls.getLast();
        }
    }

    ByteArrayOutputStream out;
    RecordingIrq irq;
    Uart16550 uart;

    @BeforeEach
    void uart() {
        out = new ByteArrayOutputStream();
        irq = new RecordingIrq();
        uart = new Uart16550(out, irq);
    }

    int in(int reg) {
        return (int) uart.read(0, reg, 1);
    }

    void out(int reg, int value) {
        uart.write(0, reg, 1, value);
    }

    String output() {
        return out.toString(StandardCharsets.ISO_8859_1);
    }

    @Test
    void decodesEightBytesOfRegisters() {
        assertEquals(8, Uart16550.SIZE);
    }

    @Test
    void scratchRegisterHoldsWhatIsWritten() {
        // autoconfig's first test: write 0xa5 / 0x5a to SCR and read them back
        out(SCR, 0xa5);
        assertEquals(0xa5, in(SCR));
        out(SCR, 0x5a);
        assertEquals(0x5a, in(SCR));
    }

    @Test
    void lineControlRegisterReadsBack() {
        out(LCR, 0x03); // 8N1
        assertEquals(0x03, in(LCR));
    }

    @Test
    void divisorLatchIsReachedThroughDlab() {
        out(LCR, 0x80 | 0x03);
        out(DLL, 0x01);
        out(DLM, 0x00);
        assertEquals(0x01, in(DLL));
        assertEquals(0x00, in(DLM));
        out(LCR, 0x03);
        assertEquals("", output(), "a divisor write went out as data");
        assertEquals(0, in(IER), "a divisor write reached IER");
        out(LCR, 0x83);
        assertEquals(0x01, in(DLL), "the divisor did not survive clearing DLAB");
    }

    @Test
    void divisorDefaultsTo9600Baud() {
        out(LCR, 0x80);
        assertEquals(12, in(DLL) | in(DLM) << 8);
    }

    @Test
    void readingRbrWithDlabSetDoesNotConsumeInput() {
        uart.receive(new byte[] {'x'});
        out(LCR, 0x80);
        in(DLL);
        out(LCR, 0x00);
        assertEquals('x', in(RBR));
    }

    @Test
    void ierKeepsOnlyItsFourBits() {
        out(IER, 0xff);
        assertEquals(0x0f, in(IER));
    }

    @Test
    void modemControlKeepsFiveBits() {
        out(MCR, 0xff);
        assertEquals(0x1f, in(MCR));
    }

    @Test
    void modemLinesLookConnectedOutsideLoopback() {
        assertEquals(MSR_DCD | MSR_DSR | MSR_CTS, in(MSR));
    }

    @Test
    void loopbackMapsModemControlOntoModemStatus() {
        // the 8250 probe: MCR = LOOP | OUT2 | RTS must read back MSR & 0xf0 == DCD | CTS (0x90)
        out(MCR, MCR_LOOP | MCR_OUT2 | MCR_RTS);
        assertEquals(0x90, in(MSR) & 0xf0);
        out(MCR, MCR_LOOP | MCR_DTR);
        assertEquals(MSR_DSR, in(MSR));
        out(MCR, MCR_LOOP | MCR_RTS);
        assertEquals(MSR_CTS, in(MSR));
        out(MCR, MCR_LOOP | MCR_OUT1);
        assertEquals(MSR_RI, in(MSR));
        out(MCR, MCR_LOOP | MCR_OUT2);
        assertEquals(MSR_DCD, in(MSR));
        out(MCR, MCR_LOOP);
        assertEquals(0, in(MSR));
    }

    @Test
    void loopbackEchoesThrIntoRbrInsteadOfTheConsole() {
        out(MCR, MCR_LOOP);
        out(THR, 'A');
        out(THR, 'B');
        assertEquals(LSR_DR, in(LSR) & LSR_DR);
        assertEquals('A', in(RBR));
        assertEquals('B', in(RBR));
        assertEquals(0, in(LSR) & LSR_DR);
        assertEquals("", output());
        out(MCR, 0);
        out(THR, 'C');
        assertEquals("C", output());
    }

    @Test
    void thrWritesReachTheConsoleInOrder() {
        for (byte b : "Linux version 6.x\r\nbooting...\n".getBytes(StandardCharsets.ISO_8859_1)) out(THR, b & 0xff);
        assertEquals("Linux version 6.x\r\nbooting...\n", output());
    }

    @Test
    void allEightBitsOfAByteAreSent() {
        out(THR, 0xff);
        out(THR, 0x00);
        out(THR, 0x1ff); // only the low byte is the register
        byte[] sent = out.toByteArray();
        assertEquals(3, sent.length);
        assertEquals((byte) 0xff, sent[0]);
        assertEquals((byte) 0x00, sent[1]);
        assertEquals((byte) 0xff, sent[2]);
    }

    @Test
    void transmitterIsAlwaysEmpty() {
        assertEquals(LSR_THRE | LSR_TEMT, in(LSR));
        out(THR, 'x');
        assertEquals(LSR_THRE | LSR_TEMT, in(LSR));
    }

    @Test
    void noInterruptPendingAfterReset() {
        assertEquals(IIR_NO_INT, in(IIR) & IIR_ID_MASK);
        assertEquals(List.of(), irq.calls);
    }

    @Test
    void iirShowsFifosEnabledOnceFcrEnablesThem() {
        assertEquals(0, in(IIR) & 0xc0);
        out(FCR, 0x07); // enable + clear both FIFOs
        assertEquals(0xc0, in(IIR) & 0xc0);
        assertEquals(IIR_NO_INT, in(IIR) & IIR_ID_MASK);
    }

    @Test
    void enablingThriRaisesTheInterruptAtOnce() {
        out(IER, IER_THRI);
        assertEquals(List.of(true), irq.calls);
    }

    @Test
    void iirReadReportingThriClearsIt() {
        out(IER, IER_THRI);
        assertEquals(IIR_THRI, in(IIR) & IIR_ID_MASK);
        assertEquals(List.of(true, false), irq.calls);
        assertEquals(IIR_NO_INT, in(IIR) & IIR_ID_MASK, "THRI still pending after the IIR read reported it");
    }

    @Test
    void eachThrWriteRaisesThriAgain() {
        out(IER, IER_THRI);
        in(IIR);
        out(THR, 'a');
        assertTrue(irq.high(), "no THR-empty interrupt after a write: the 8250 driver would stop sending");
        assertEquals(IIR_THRI, in(IIR) & IIR_ID_MASK);
        assertEquals(List.of(true, false, true, false), irq.calls);
        out(THR, 'b');
        out(THR, 'c');
        assertEquals(List.of(true, false, true, false, true), irq.calls, "the line was set again while high");
        assertEquals("abc", output());
    }

    @Test
    void thrWritesWithThriDisabledRaiseNothing() {
        out(THR, 'a');
        out(THR, 'b');
        assertEquals(List.of(), irq.calls);
        assertEquals(IIR_NO_INT, in(IIR) & IIR_ID_MASK);
    }

    @Test
    void disablingThriLowersTheLine() {
        out(IER, IER_THRI);
        out(IER, 0);
        assertEquals(List.of(true, false), irq.calls);
        assertEquals(IIR_NO_INT, in(IIR) & IIR_ID_MASK);
    }

    @Test
    void idleTransmitterReassertsThriWhenReEnabled() {
        // serial8250_do_startup's UART_BUG_THRE test: enable THRI, read IIR, disable, enable again,
        // read IIR: a real 16550 reports THRI both times (else the driver falls back to polling)
        out(IER, IER_THRI);
        int iir1 = in(IIR);
        out(IER, 0);
        out(IER, IER_THRI);
        int iir = in(IIR);
        out(IER, 0);
        assertEquals(IIR_THRI, iir1 & IIR_ID_MASK);
        assertEquals(IIR_THRI, iir & IIR_ID_MASK);
        assertEquals(List.of(true, false, true, false), irq.calls);
    }

    @Test
    void rewritingIerWithThriStillOnDoesNotReraiseIt() {
        out(IER, IER_THRI);
        in(IIR);
        out(IER, IER_THRI | IER_RDI);
        assertEquals(List.of(true, false), irq.calls);
        assertEquals(IIR_NO_INT, in(IIR) & IIR_ID_MASK);
    }

    @Test
    void receivedDataRaisesRdiAndDataReadyUntilDrained() {
        out(IER, IER_RDI);
        assertEquals(List.of(), irq.calls);
        uart.receive("hi".getBytes(StandardCharsets.US_ASCII));
        assertEquals(List.of(true), irq.calls);
        assertEquals(LSR_DR, in(LSR) & LSR_DR);
        assertEquals(IIR_RDI, in(IIR) & IIR_ID_MASK);
        assertEquals(IIR_RDI, in(IIR) & IIR_ID_MASK, "reading IIR must not clear RDI: only draining does");
        assertEquals('h', in(RBR));
        assertTrue(irq.high());
        assertEquals(LSR_DR, in(LSR) & LSR_DR);
        assertEquals('i', in(RBR));
        assertEquals(0, in(LSR) & LSR_DR);
        assertEquals(IIR_NO_INT, in(IIR) & IIR_ID_MASK);
        assertEquals(List.of(true, false), irq.calls);
    }

    @Test
    void receivedDataWithRdiDisabledSetsDataReadyOnly() {
        uart.receive(new byte[] {'q'});
        assertEquals(List.of(), irq.calls);
        assertEquals(LSR_DR, in(LSR) & LSR_DR);
        assertEquals(IIR_NO_INT, in(IIR) & IIR_ID_MASK);
        out(IER, IER_RDI);
        assertEquals(List.of(true), irq.calls, "enabling RDI with data waiting did not raise it");
    }

    @Test
    void emptyRbrReadsZero() {
        assertEquals(0, in(RBR));
    }

    @Test
    void receivedBytesKeepAllEightBits() {
        uart.receive(new byte[] {(byte) 0xe9, (byte) 0x80});
        assertEquals(0xe9, in(RBR));
        assertEquals(0x80, in(RBR));
    }

    @Test
    void rdiTakesPriorityOverThriAndLeavesItPending() {
        out(IER, IER_RDI | IER_THRI);
        uart.receive(new byte[] {'z'});
        assertEquals(IIR_RDI, in(IIR) & IIR_ID_MASK);
        in(RBR);
        assertTrue(irq.high(), "THRI was lost while RDI was reported");
        assertEquals(IIR_THRI, in(IIR) & IIR_ID_MASK);
        assertEquals(IIR_NO_INT, in(IIR) & IIR_ID_MASK);
        assertEquals(List.of(true, false), irq.calls);
    }

    @Test
    void receiveBufferDropsWhatExceeds4096Bytes() {
        byte[] lots = new byte[5000];
        for (int i = 0; i < lots.length; i++) lots[i] = (byte) i;
        uart.receive(lots);
        int n = 0;
        while ((in(LSR) & LSR_DR) != 0) {
            assertEquals(lots[n] & 0xff, in(RBR));
            n++;
        }
        assertEquals(4096, n);
    }

    @Test
    void lineOnlyChangesOnLevelChanges() {
        out(IER, IER_RDI | IER_THRI);
        for (int i = 0; i < 20; i++) {
            out(THR, 'a' + i % 26);
            uart.receive(new byte[] {(byte) i});
            in(LSR);
            in(IIR);
            in(IIR);
            in(RBR);
            in(IIR);
        }
        for (int i = 1; i < irq.calls.size(); i++) {
            assertTrue(irq.calls.get(i) != irq.calls.get(i - 1), "set(" + irq.calls.get(i) + ") twice in a row: " + irq.calls);
        }
        assertEquals(true, irq.calls.getFirst());
    }

    @Test
    void aLinuxConsoleSessionPrintsEverythingAndEndsQuiet() {
        // probe
        out(SCR, 0xa5);
        assertEquals(0xa5, in(SCR));
        out(MCR, MCR_LOOP | 0x0a);
        assertEquals(0x90, in(MSR) & 0xf0);
        out(MCR, 0);
        // set-up: 115200 8N1, FIFOs on, interrupts on
        out(LCR, 0x83);
        out(DLL, 1);
        out(DLM, 0);
        out(LCR, 0x03);
        out(FCR, 0x07);
        out(MCR, MCR_DTR | MCR_RTS | MCR_OUT2);
        out(IER, IER_RDI);
        // start_tx: enable THRI, then the interrupt handler sends while THRE and the buffer is not empty
        String msg = "Welcome to jkvm\n";
        int sent = 0;
        out(IER, IER_RDI | IER_THRI);
        while (irq.high()) {
            int iir = in(IIR);
            if ((iir & IIR_ID_MASK) == IIR_THRI) {
                if (sent < msg.length()) out(THR, msg.charAt(sent++));
                else out(IER, IER_RDI); // stop_tx
            }
        }
        assertEquals(msg, output());
        assertEquals(IIR_NO_INT, in(IIR) & IIR_ID_MASK);
    }
}
