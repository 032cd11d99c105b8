package org.jkvm.vmm.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code --cpu name=on|off[,...]}: every feature on unless switched off, bad items refused by name. */
@Tag("unit")
class CpuOptionsTest {
    @Test
    void everyFeatureIsOnByDefault() {
        assertEquals(new CpuOptions(true, true), CpuOptions.DEFAULT);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "ptrauth=off          | false | true",
            "sve=off              | true  | false",
            "ptrauth=off,sve=off  | false | false",
            "sve=off, sve         | true  | true",
            "ptrauth=off,ptrauth=on | true | true"})
    void switchesApplyInOrderToTheDefaults(String text, boolean ptrAuth, boolean sve) {
        assertEquals(new CpuOptions(ptrAuth, sve), CpuOptions.parse(text));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {"ptrauth=on,sve=on | true | true", "ptrauth=off,sve=on | false | true",
            "ptrauth=on,sve=off | true | false", "ptrauth=off,sve=off | false | false"})
    void theTextIsTheOptionsOwnSyntaxAndParsesBack(String text, boolean ptrAuth, boolean sve) {
        CpuOptions o = new CpuOptions(ptrAuth, sve);
        assertEquals(text, o.toString());
        assertEquals(o, CpuOptions.parse(o.toString()));
    }

    @Test
    void unknownFeatureListsTheKnownOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CpuOptions.parse("sve=off,mte"));
        assertEquals("cpu mte: unknown feature 'mte'; known: ptrauth, sve", e.getMessage());
    }

    @Test
    void aValueOtherThanOnOrOffIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CpuOptions.parse("sve=128"));
        assertEquals("cpu sve=128: the value must be on or off", e.getMessage());
    }
}
