package org.jkvm.vmm.virtio;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/** A port's capture keeps what the guest wrote, up to its limit, and drops the rest. */
@Tag("unit")
class PortCaptureTest {
    @Test
    void keepsWritesInOrderUpToTheLimit() {
        PortCapture c = new PortCapture("jkvm.results", 8);
        c.write("RESULT".getBytes(StandardCharsets.US_ASCII), 0, 6);
        c.write(' ');
        c.write("1234".getBytes(StandardCharsets.US_ASCII), 0, 4);
        c.write("more".getBytes(StandardCharsets.US_ASCII), 0, 4);
        assertArrayEquals("RESULT 1".getBytes(StandardCharsets.US_ASCII), c.toByteArray());
    }
}
