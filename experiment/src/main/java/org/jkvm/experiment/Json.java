package org.jkvm.experiment;

import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.SerializableString;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.io.CharacterEscapes;
import tools.jackson.core.io.SerializedString;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.util.DefaultIndenter;
import tools.jackson.core.util.DefaultPrettyPrinter;
import tools.jackson.core.util.Separators;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.exc.InvalidDefinitionException;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.module.SimpleModule;
import tools.jackson.databind.ser.std.StdSerializer;

/**
 * jkvm's one JSON writer and reader (Jackson), for maps, lists, strings, numbers, booleans, enums
 * and null. {@link #pretty} is for people and files ({@code caps --json}, {@code --stats-json},
 * {@code experiment plan --json}): two-space indented objects, lists on one line. {@link #line}
 * is one record per line (the results log). Both write a double as {@link #number} does, NaN and
 * the infinities as null, and escape control characters as {@code \}{@code u00xx}.
 */
public final class Json {
    private Json() {}

    private static final JsonMapper MAPPER = JsonMapper.builder(JsonFactory.builder().characterEscapes(new Escapes()).build())
            .addModule(new SimpleModule("jkvm-numbers")
                    .addSerializer(Double.class, new DoubleForm())
                    .addSerializer(Double.TYPE, new DoubleForm())
                    .addSerializer(Float.class, new DoubleForm())
                    .addSerializer(Float.TYPE, new DoubleForm()))
            .enable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
            .build();

    private static final ObjectWriter PRETTY = MAPPER.writer().with(new DefaultPrettyPrinter(Separators.createDefaultInstance()
                    .withObjectNameValueSpacing(Separators.Spacing.AFTER)
                    .withObjectEntrySpacing(Separators.Spacing.NONE)
                    .withObjectEmptySeparator("")
                    .withArrayElementSpacing(Separators.Spacing.AFTER)
                    .withArrayEmptySeparator(""))
            .withObjectIndenter(new DefaultIndenter("  ", "\n"))
            .withArrayIndenter(DefaultPrettyPrinter.NopIndenter.instance()));

    private static final ObjectWriter LINE = MAPPER.writer();

    /** A results line: one object, nothing after it, no field twice. */
    private static final ObjectReader STRICT = MAPPER.reader()
            .with(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    /** {@code value} indented for reading: objects one member a line, lists on one line. */
    public static String pretty(Object value) {
        return write(PRETTY, value);
    }

    /** {@code value} on one line without spaces (a JSON-lines record). */
    public static String line(Object value) {
        return write(LINE, value);
    }

    private static String write(ObjectWriter writer, Object value) {
        try {
            return writer.writeValueAsString(value);
        } catch (InvalidDefinitionException e) {
            throw new IllegalArgumentException("no JSON form for " + e.getType().getRawClass().getName(), e);
        }
    }

    /**
     * Parses one JSON value filling the whole text.
     *
     * @throws tools.jackson.core.JacksonException with the line and column of a syntax error
     */
    public static JsonNode read(String text) {
        return STRICT.readTree(text);
    }

    /** A streaming parser over {@code text}, for a reader that wants each token's place. */
    static JsonParser parser(String text) {
        return MAPPER.createParser(text);
    }

    /** A double as JSON: integral values without ".0", others as Java's shortest round-trip form. */
    public static String number(double d) {
        if (d == Math.rint(d) && Math.abs(d) < 1e15) return Long.toString((long) d);
        return Double.toString(d);
    }

    /** Doubles and floats as {@link #number}, NaN and the infinities as null. */
    private static final class DoubleForm extends StdSerializer<Number> {
        DoubleForm() {
            super(Number.class);
        }

        @Override
        public void serialize(Number n, JsonGenerator g, SerializationContext context) {
            double d = n.doubleValue();
            if (Double.isFinite(d)) g.writeNumber(number(d));
            else g.writeNull();
        }
    }

    /** Control characters other than \n, \r, \t, and U+2028/U+2029, as lower-case {@code \}{@code u00xx}. */
    private static final class Escapes extends CharacterEscapes {
        private static final long serialVersionUID = 1L;
        private final int[] ascii = standardAsciiEscapesForJSON();

        Escapes() {
            for (int c = 0; c < 0x20; c++) {
                if (c != '\n' && c != '\r' && c != '\t') ascii[c] = ESCAPE_CUSTOM;
            }
        }

        @Override
        public int[] getEscapeCodesForAscii() {
            return ascii;
        }

        @Override
        public SerializableString getEscapeSequence(int c) {
            return c < 0x20 || c == '\u2028' || c == '\u2029' ? new SerializedString(String.format("\\u%04x", c)) : null;
        }
    }
}
