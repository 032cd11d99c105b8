package org.jkvm.vmm;

import java.util.List;
import java.util.logging.Level;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Stop marks: one DEBUG line per step of a shutdown, timed from the VM's end. */
class StopMarksTest {
    private static final Pattern LINE = Pattern.compile("stop: (.+) at \\+(\\d+) ms");

    @Tag("unit")
    @Test
    void stepsAreTimedFromTheEndAtDebug() {
        List<String> lines = LogCapture.messages(StopMarks.class, Level.FINE, () -> {
            StopMarks.ended();
            sleep(5);
            StopMarks.mark("threads joined");
        });
        assertEquals(1, lines.size(), lines.toString());
        Matcher m = LINE.matcher(lines.get(0));
        assertTrue(m.matches(), lines.get(0));
        assertEquals("threads joined", m.group(1));
        assertTrue(Long.parseLong(m.group(2)) >= 5, "timed from the end: " + lines);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
