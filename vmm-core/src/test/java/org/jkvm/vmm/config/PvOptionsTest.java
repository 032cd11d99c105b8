package org.jkvm.vmm.config;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** --pv name=on|off settings. */
@Tag("unit")
class PvOptionsTest {
    @Test
    void everythingIsOnByDefault() {
        assertTrue(PvOptions.DEFAULT.stealTime());
    }

    @Test
    void stealTimeCanBeTurnedOff() {
        assertFalse(PvOptions.parse("steal-time=off").stealTime());
    }

    @Test
    void stealTimeCanBeTurnedOn() {
        assertTrue(PvOptions.parse("steal-time=on").stealTime());
    }

    @Test
    void aBareNameMeansOn() {
        assertTrue(PvOptions.parse("steal-time").stealTime());
    }

    @Test
    void theTextIsTheOptionsOwnSyntaxAndParsesBack() {
        assertEquals("steal-time=on", PvOptions.DEFAULT.toString());
        assertEquals("steal-time=off", new PvOptions(false).toString());
        assertEquals(new PvOptions(false), PvOptions.parse(new PvOptions(false).toString()));
    }

    @Test
    void laterSettingsWin() {
        assertTrue(PvOptions.parse("steal-time=off, steal-time=on").stealTime());
        assertFalse(PvOptions.parse("steal-time=on,steal-time=off").stealTime());
    }

    @Test
    void unknownFeatureListsTheKnownOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PvOptions.parse("bogus=on"));
        assertEquals("pv bogus=on: unknown feature 'bogus'; known: steal-time", e.getMessage());
    }

    @Test
    void unknownFeatureAfterAKnownOneIsStillRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PvOptions.parse("steal-time=off,pv-lock"));
        assertEquals("pv pv-lock: unknown feature 'pv-lock'; known: steal-time", e.getMessage());
    }

    @Test
    void emptyTextIsAnUnknownFeature() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PvOptions.parse(""));
        assertTrue(e.getMessage().contains("known: steal-time"), e.getMessage());
    }

    @ParameterizedTest(name = "steal-time={0} is refused")
    @ValueSource(strings = {"yes", "1", "ON", "", "of"})
    void valueMustBeOnOrOff(String value) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PvOptions.parse("steal-time=" + value));
        assertEquals("pv steal-time=" + value + ": the value must be on or off", e.getMessage());
    }
}
