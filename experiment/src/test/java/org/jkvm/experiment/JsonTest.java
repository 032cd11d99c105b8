package org.jkvm.experiment;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The JSON jkvm writes: pretty for --json and --stats-json, one line for the results log. */
@Tag("unit")
class JsonTest {
    enum Reason { MMIO, HYPERCALL }

    @Test
    void scalars() {
        assertEquals("null", Json.pretty(null));
        assertEquals("true", Json.pretty(true));
        assertEquals("false", Json.pretty(false));
        assertEquals("42", Json.pretty(42));
        assertEquals("-9223372036854775808", Json.pretty(Long.MIN_VALUE));
        assertEquals("1.5", Json.pretty(1.5));
        assertEquals("\"MMIO\"", Json.pretty(Reason.MMIO));
    }

    @Test
    void plainStringIsQuoted() {
        assertEquals("\"/dev/kvm\"", Json.pretty("/dev/kvm"));
        assertEquals("\"\"", Json.pretty(""));
    }

    @Test
    void quotesAndBackslashesAreEscaped() {
        assertEquals("\"say \\\"hi\\\" C:\\\\dir\"", Json.pretty("say \"hi\" C:\\dir"));
    }

    @Test
    void commonControlCharactersUseShortEscapes() {
        assertEquals("\"a\\nb\\rc\\td\"", Json.pretty("a\nb\rc\td"));
    }

    @Test
    void otherControlCharactersUseUnicodeEscapes() {
        assertEquals("\"\\u0000\\u0001\\u0008\\u000c\\u001b\\u001f\"", Json.pretty("\0\u0001\b\f\u001b\u001f"));
    }

    @Test
    void spaceDeleteAndNonAsciiPassThrough() {
        assertEquals("\" \u007f\u00e9\u4e2d\uD83D\uDE00/\"", Json.pretty(" \u007f\u00e9\u4e2d\uD83D\uDE00/"));
    }

    @Test
    void mapKeysAreEscapedToo() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("a\"b", 1);
        assertEquals("{\n  \"a\\\"b\": 1\n}", Json.pretty(m));
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
                + "  \"none\": null\n}", Json.pretty(m));
    }

    @Test
    void emptyContainers() {
        assertEquals("{}", Json.pretty(Map.of()));
        assertEquals("[]", Json.pretty(List.of()));
    }

    @Test
    void listsAreOnOneLine() {
        List<Object> l = new ArrayList<>(Arrays.asList(1, "two", null, true));
        assertEquals("[1, \"two\", null, true]", Json.pretty(l));
    }

    @Test
    void listOfMapsNestsTheIndent() {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("vcpu", 0);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("vcpus", List.of(v));
        assertEquals("{\n  \"vcpus\": [{\n    \"vcpu\": 0\n  }]\n}", Json.pretty(m));
    }

    @Test
    void aLineHasNoSpacesAndWholeDoublesNoFraction() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("value", 42.0);
        m.put("wall_s", 12.841432213);
        m.put("failed", Double.NaN);
        m.put("big", 1e15);
        m.put("list", List.of(1.5, 2.0f, Double.POSITIVE_INFINITY));
        m.put("text", "a\u001bb\u2028");
        assertEquals("{\"value\":42,\"wall_s\":12.841432213,\"failed\":null,\"big\":1.0E15,\"list\":[1.5,2,null],"
                + "\"text\":\"a\\u001bb\\u2028\"}", Json.line(m));
    }

    @Test
    void readRefusesTrailingTextAndRepeatedFields() {
        assertEquals(3, Json.read("{\"a\": 3}").get("a").intValue());
        assertThrows(tools.jackson.core.JacksonException.class, () -> Json.read("{} {}"));
        assertThrows(tools.jackson.core.JacksonException.class, () -> Json.read("{\"a\": 1, \"a\": 2}"));
        for (String cut : List.of("", "  ", "{", "{\"a\"", "{\"a\":", "[1,", "[{\"a\": [")) {
            assertThrows(tools.jackson.core.JacksonException.class, () -> Json.read(cut), "'" + cut + "'");
        }
    }

    @Test
    void readKeepsEachNumberInTheSmallestKindThatHoldsIt() {
        tools.jackson.databind.JsonNode n = Json.read("{\"i\": -7, \"l\": 12345678901, \"b\": 123456789012345678901234,"
                + " \"d\": 2.5, \"e\": 1e2, \"s\": \"x\", \"t\": true, \"z\": null, \"a\": [1, {\"k\": false}]}");
        assertEquals(true, n.get("i").isInt());
        assertEquals(-7, n.get("i").intValue());
        assertEquals(true, n.get("l").isLong());
        assertEquals(12345678901L, n.get("l").longValue());
        assertEquals(true, n.get("b").isBigInteger());
        assertEquals(new java.math.BigInteger("123456789012345678901234"), n.get("b").bigIntegerValue());
        assertEquals(true, n.get("d").isDouble());
        assertEquals(100.0, n.get("e").doubleValue());
        assertEquals("x", n.get("s").stringValue());
        assertEquals(true, n.get("t").booleanValue());
        assertEquals(true, n.get("z").isNull());
        assertEquals(false, n.get("a").get(1).get("k").booleanValue());
        assertEquals("[1,{\"k\":false}]", n.get("a").toString());
    }

    @Test
    void unsupportedValuesAreRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Json.pretty(new Object()));
        assertEquals("no JSON form for java.lang.Object", e.getMessage());
        for (Object v : List.of(new long[] {1}, Optional.of(1), 'c', new BigDecimal("1.5"))) {
            assertThrows(IllegalArgumentException.class, () -> Json.line(List.of(v)), v.getClass().getName());
        }
    }
}
