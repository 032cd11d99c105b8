package org.jkvm.vmm.config;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Memory sizes as users write them for --memory. */
@Tag("unit")
class SizesTest {
    @ParameterizedTest(name = "{0} is {1} bytes")
    @CsvSource({
        "0, 0",
        "1048576, 1048576",
        "64K, 65536",
        "512M, 536870912",
        "2G, 2147483648",
        "1T, 1099511627776",
        "512m, 536870912",
        "2g, 2147483648",
        "512MB, 536870912",
        "512MiB, 536870912",
        "512mib, 536870912",
        "100B, 100",
        "'  1G  ', 1073741824",
        "8388607T, 9223370937343148032",
    })
    void parsesSizesUsersWrite(String text, long bytes) {
        assertEquals(bytes, Sizes.parse(text));
    }

    @ParameterizedTest(name = "''{0}'' is refused")
    @ValueSource(strings = {"", " ", "M", "B", "MiB", "abc", "1.5G", "-1M", "-1", "12X", "1 G", "0x100",
        "8388608T", "8796093022208G", "9223372036854775807K", "9223372036854775808", "99999999999999999999"})
    void refusesWhatIsNotASize(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Sizes.parse(text));
        assertEquals("'" + text + "' is not a size: write e.g. 512M or 2G", e.getMessage());
    }

    @Test
    void largestBytesCountIsAccepted() {
        assertEquals(Long.MAX_VALUE, Sizes.parse(Long.toString(Long.MAX_VALUE)));
    }

    @ParameterizedTest(name = "{0} bytes is written {1}")
    @CsvSource({
        "0, 0",
        "100, 100",
        "1023, 1023",
        "1024, 1K",
        "1572864, 1536K",
        "536870912, 512M",
        "2147483648, 2G",
        "1099511627776, 1T",
        "1125899906842624, 1024T",
        "1025, 1025",
    })
    void formatsInTheLargestExactUnit(long bytes, String text) {
        assertEquals(text, Sizes.format(bytes));
    }

    @ParameterizedTest
    @ValueSource(longs = {0, 1, 4096, 1536L << 10, 512L << 20, 3L << 30, 5L << 40, 123456789})
    void formatThenParseRoundTrips(long bytes) {
        assertEquals(bytes, Sizes.parse(Sizes.format(bytes)));
    }
}
