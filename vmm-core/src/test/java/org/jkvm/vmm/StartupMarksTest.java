package org.jkvm.vmm;

import java.util.List;
import java.util.logging.Level;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Start-up marks: one DEBUG line per step, times since the process started and since the previous mark. */
class StartupMarksTest {
    private static final Pattern LINE = Pattern.compile("start-up: (.+) at (\\d+) ms \\(\\+(\\d+) ms\\)");

    @Tag("unit")
    @Test
    void marksAreLoggedAtDebugWithGrowingTimes() {
        List<String> lines = capture(Level.FINE, () -> {
            StartupMarks.mark("first", System.currentTimeMillis() - 5);
            StartupMarks.mark("second");
        });
        assertEquals(2, lines.size(), lines.toString());
        Matcher first = matching(lines.get(0));
        Matcher second = matching(lines.get(1));
        assertEquals("first", first.group(1));
        assertEquals("second", second.group(1));
        long firstAt = Long.parseLong(first.group(2));
        long secondAt = Long.parseLong(second.group(2));
        long secondStep = Long.parseLong(second.group(3));
        assertTrue(firstAt > 0, lines.toString());
        assertTrue(secondAt >= firstAt + 5 && secondStep >= 5, "the second mark is after the first: " + lines);
        assertEquals(secondAt - firstAt, secondStep, lines.toString());
    }

    @Tag("unit")
    @Test
    void nothingIsLoggedAboveDebug() {
        assertEquals(List.of(), capture(Level.INFO, () -> StartupMarks.mark("quiet")));
    }

    private static Matcher matching(String line) {
        Matcher m = LINE.matcher(line);
        assertTrue(m.matches(), line);
        return m;
    }

    private static List<String> capture(Level level, Runnable marks) {
        return LogCapture.messages(StartupMarks.class, level, marks);
    }
}
