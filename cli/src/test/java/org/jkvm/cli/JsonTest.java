package org.jkvm.cli;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The JSON jkvm writes for --json and --stats-json. */
@Tag("unit")
class JsonTest {
    enum Reason { MMIO, HYPERCALL }

    @Test
    void scalars() {
        assertEquals("null", Json.write(null));
        assertEquals("true", Json.write(true));
        assertEquals("false", Json.write(false));
        assertEquals("42", Json.write(42));
        assertEquals("-9223372036854775808", Json.write(Long.MIN_VALUE));
        assertEquals("1.5", Json.write(1.5));
        assertEquals("\"MMIO\"", Json.write(Reason.MMIO));
    }

    @Test
    void plainStringIsQuoted() {
        assertEquals("\"/dev/kvm\"", Json.write("/dev/kvm"));
        assertEquals("\"\"", Json.write(""));
    }

    @Test
    void quotesAndBackslashesAreEscaped() {
        assertEquals("\"say \\\"hi\\\" C:\\\\dir\"", Json.write("say \"hi\" C:\\dir"));
    }

    @Test
    void commonControlCharactersUseShortEscapes() {
        assertEquals("\"a\\nb\\rc\\td\"", Json.write("a\nb\rc\td"));
    }

    @Test
    void otherControlCharactersUseUnicodeEscapes() {
        assertEquals("\"\\u0000\\u0001\\u0008\\u000c\\u001b\\u001f\"", Json.write("\0\u0001\b\f\u001b\u001f"));
    }

    @Test
    void spaceDeleteAndNonAsciiPassThrough() {
        assertEquals("\" \u007f\u00e9\u4e2d\uD83D\uDE00/\"", Json.write(" \u007f\u00e9\u4e2d\uD83D\uDE00/"));
    }

    @Test
    void mapKeysAreEscapedToo() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("a\"b", 1);
        assertEquals("{\n  \"a\\\"b\": 1\n}", Json.write(m));
    }

    @Test
    void nestedMapsAreIndentedTwoSpacesAKeyInOrder() {
        Map<String, Object> inner = new LinkedHashMap<>();
        inner.put("ipa_limit_bits", 40);
        inner.put("sve", false);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("arch", "aarch64");
        m.put("arm64", inner);
        m.put("none", null);
        assertEquals("{\n  \"arch\": \"aarch64\",\n  \"arm64\": {\n    \"ipa_limit_bits\": 40,\n    \"sve\": false\n  },\n"
                + "  \"none\": null\n}", Json.write(m));
    }

    @Test
    void emptyContainers() {
        assertEquals("{}", Json.write(Map.of()));
        assertEquals("[]", Json.write(List.of()));
    }

    @Test
    void listsAreOnOneLine() {
        List<Object> l = new ArrayList<>(Arrays.asList(1, "two", null, true));
        assertEquals("[1, \"two\", null, true]", Json.write(l));
    }

    @Test
    void listOfMapsNestsTheIndent() {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("vcpu", 0);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("vcpus", List.of(v));
        assertEquals("{\n  \"vcpus\": [{\n    \"vcpu\": 0\n  }]\n}", Json.write(m));
    }

    @Test
    void unsupportedValuesAreRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Json.write(new Object()));
        assertEquals("no JSON form for java.lang.Object", e.getMessage());
    }
}
