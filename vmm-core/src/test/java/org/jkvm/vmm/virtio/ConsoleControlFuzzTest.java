package org.jkvm.vmm.virtio;

import java.io.ByteArrayOutputStream;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.jkvm.vmm.FuzzInput;
import org.junit.jupiter.api.Tag;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A guest driving virtio-console's control queues with anything: the device serves the control
 * transmit queue and answers into the receive queue for a few rounds, and either refuses a
 * malformed queue with a {@link VirtioException} or goes on; control traffic never reaches the
 * ports' output. Input: a {@link FuzzedQueue} for the control transmit queue, then one for the
 * control receive queue.
 */
@Tag("unit")
@Tag("fuzz")
class ConsoleControlFuzzTest {
    @FuzzTest(maxDuration = "30s")
    void controlMessages(byte[] data) {
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        ByteArrayOutputStream results = new ByteArrayOutputStream();
        VirtioConsole device = new VirtioConsole("virtio-console-fuzz", console, results);
        FuzzInput in = new FuzzInput(data);
        try {
            FuzzedQueue control = new FuzzedQueue(in);
            FuzzedQueue answers = new FuzzedQueue(in);
            for (int round = 0; round < 4; round++) {
                device.serve(VirtioConsole.CONTROL_TX, control.queue);
                device.serve(VirtioConsole.CONTROL_RX, answers.queue);
            }
        } catch (VirtioException refused) {
            // a malformed queue: the transport asks the driver to reset the device
        }
        assertEquals(0, console.size() + results.size());
    }
}
