package org.jkvm.vmm.config;

import java.util.BitSet;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Host CPU lists for --pin, as taskset writes them. */
@Tag("unit")
class CpuSetTest {
    static BitSet cpus(int... n) {
        BitSet s = new BitSet();
        for (int c : n) s.set(c);
        return s;
    }

    @Test
    void singleCpu() {
        assertEquals(cpus(0), CpuSet.parse("0"));
    }

    @Test
    void range() {
        assertEquals(cpus(0, 1, 2, 3), CpuSet.parse("0-3"));
    }

    @Test
    void listOfCpusAndRanges() {
        assertEquals(cpus(0, 2, 4, 5, 6, 7), CpuSet.parse("0,2,4-7"));
    }

    @Test
    void spacesAroundItemsAreAllowed() {
        assertEquals(cpus(1, 2, 3, 5), CpuSet.parse(" 1 - 3 , 5 "));
    }

    @Test
    void overlappingItemsMerge() {
        assertEquals(cpus(0, 1, 2, 3), CpuSet.parse("0-2,1-3"));
    }

    @Test
    void largestCpuIsAccepted() {
        assertEquals(cpus(CpuSet.MAX_CPU), CpuSet.parse(Integer.toString(CpuSet.MAX_CPU)));
    }

    @ParameterizedTest(name = "''{0}'' is refused")
    @ValueSource(strings = {"", " ", "a", "-1", "3-1", "0-", "-", "1-2-3", "0,,1", ",0", "1.5", "8192", "0-8192",
        "99999999999", "0x3"})
    void refusesWhatIsNotACpuList(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CpuSet.parse(text));
        assertEquals("'" + text + "' is not a CPU list: write e.g. 0, 0-3 or 0,2,4-7", e.getMessage());
    }

    @ParameterizedTest(name = "{0} is written back as {1}")
    @CsvSource(delimiter = ';', value = {
        "0; 0",
        "0-3; 0-3",
        "0,2,4-7; 0,2,4-7",
        "3,1,2; 1-3",
        "0,1; 0-1",
        "5-5; 5",
        "0-2,1-3,8; 0-3,8",
    })
    void formatsInTheSameNotation(String text, String formatted) {
        assertEquals(formatted, CpuSet.format(CpuSet.parse(text)));
    }

    @Test
    void emptySetIsWrittenEmpty() {
        assertEquals("", CpuSet.format(new BitSet()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "0-3", "0,2,4-7", "1,3,5,7", "0-8191", "8191"})
    void parseThenFormatRoundTrips(String text) {
        assertEquals(text, CpuSet.format(CpuSet.parse(text)));
    }
}
