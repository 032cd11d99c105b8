package org.jkvm.experiment;

import java.io.StringWriter;
import java.util.Collection;
import java.util.Map;

import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.PrettyPrinter;
import tools.jackson.core.SerializableString;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.core.io.CharacterEscapes;
import tools.jackson.core.io.SerializedString;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.util.DefaultIndenter;
import tools.jackson.core.util.DefaultPrettyPrinter;
import tools.jackson.core.util.Separators;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * jkvm's one JSON writer and reader (Jackson). The writer takes what jkvm's callers pass: maps,
 * collections, strings, booleans, {@code Integer}, {@code Long}, {@code Double}, {@code Float},
 * enums (by {@code toString}) and null, and refuses anything else. {@link #pretty} is for people
 * and files ({@code caps --json}, {@code --stats-json}, {@code experiment plan --json}): two-space indented objects, lists on one line. {@link #line}
 * is one record per line (the results log). Both write a double as {@link #number} does, NaN and
 * the infinities as null, and escape control characters as {@code \}{@code u00xx}.
 *
 * <p>Built on Jackson's streaming layer, without databind's {@code JsonMapper}: building a mapper
 * (its type factory, date formats and modules, none of which these plain values need) took 0.23-0.31 s
 * on x86 and several seconds of an experiment's start in the emulated arm64 host (bench/sweep/README.md);
 * the first value written this way takes a fifth of the time. {@link #read} still answers databind's
 * tree, built from the parser's tokens.
 */
public final class Json {
    private Json() {}

    private static final JsonFactory FACTORY = JsonFactory.builder().characterEscapes(new Escapes()).build();

    /** A results line: no field twice. */
    private static final JsonFactory STRICT = FACTORY.rebuild().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

    private static final Separators SEPARATORS = Separators.createDefaultInstance()
            .withObjectNameValueSpacing(Separators.Spacing.AFTER)
            .withObjectEntrySpacing(Separators.Spacing.NONE)
            .withObjectEmptySeparator("")
            .withArrayElementSpacing(Separators.Spacing.AFTER)
            .withArrayEmptySeparator("");

    /** Objects a member a line, two spaces deeper each level; lists on one line. */
    private static final ObjectWriteContext PRETTY = new ObjectWriteContext.Base() {
        @Override
        public PrettyPrinter getPrettyPrinter() {
            return new DefaultPrettyPrinter(SEPARATORS)
                    .withObjectIndenter(new DefaultIndenter("  ", "\n"))
                    .withArrayIndenter(DefaultPrettyPrinter.NopIndenter.instance());
        }

        @Override
        public boolean hasPrettyPrinter() {
            return true;
        }
    };

    /** {@code value} indented for reading: objects one member a line, lists on one line. */
    public static String pretty(Object value) {
        return write(PRETTY, value);
    }

    /** {@code value} on one line without spaces (a JSON-lines record). */
    public static String line(Object value) {
        return write(ObjectWriteContext.empty(), value);
    }

    private static String write(ObjectWriteContext context, Object value) {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = FACTORY.createGenerator(context, out)) {
            value(g, value);
        }
        return out.toString();
    }

    private static void value(JsonGenerator g, Object v) {
        switch (v) {
            case null -> g.writeNull();
            case CharSequence s -> g.writeString(s.toString());
            case Boolean b -> g.writeBoolean(b);
            case Double d -> number(g, d);
            case Float f -> number(g, f);
            case Integer n -> g.writeNumber(n.longValue());
            case Long n -> g.writeNumber(n.longValue());
            case Enum<?> e -> g.writeString(e.toString());
            case Map<?, ?> m -> {
                g.writeStartObject();
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    g.writeName(String.valueOf(e.getKey()));
                    value(g, e.getValue());
                }
                g.writeEndObject();
            }
            case Collection<?> list -> {
                g.writeStartArray();
                for (Object o : list) value(g, o);
                g.writeEndArray();
            }
            default -> throw new IllegalArgumentException("no JSON form for " + v.getClass().getName());
        }
    }

    /** Doubles and floats as {@link #number}, NaN and the infinities as null. */
    private static void number(JsonGenerator g, double d) {
        if (Double.isFinite(d)) g.writeNumber(number(d));
        else g.writeNull();
    }

    /**
     * Parses one JSON value filling the whole text.
     *
     * @throws tools.jackson.core.JacksonException with the line and column of a syntax error, a
     *         field given twice in an object, or text after the value
     */
    public static JsonNode read(String text) {
        try (JsonParser p = STRICT.createParser(ObjectReadContext.empty(), text)) {
            JsonToken first = p.nextToken();
            if (first == null) throw new StreamReadException(p, "No content to map due to end-of-input");
            JsonNode root = node(p, first);
            if (p.nextToken() != null) {
                throw new StreamReadException(p, "Trailing token (of type " + p.currentToken() + ") found after value");
            }
            return root;
        }
    }

    /** The tree of the value that starts at {@code t}, the parser's current token. */
    private static JsonNode node(JsonParser p, JsonToken t) {
        if (t == null) throw new StreamReadException(p, "Unexpected end-of-input in a value");
        JsonNodeFactory nodes = JsonNodeFactory.instance;
        return switch (t) {
            case START_OBJECT -> {
                ObjectNode o = nodes.objectNode();
                for (JsonToken k = p.nextToken(); k != JsonToken.END_OBJECT; k = p.nextToken()) {
                    if (k != JsonToken.PROPERTY_NAME) throw new StreamReadException(p, "Expected a property name, found " + k);
                    String name = p.currentName();
                    o.set(name, node(p, p.nextToken()));
                }
                yield o;
            }
            case START_ARRAY -> {
                ArrayNode a = nodes.arrayNode();
                for (JsonToken e = p.nextToken(); e != JsonToken.END_ARRAY; e = p.nextToken()) a.add(node(p, e));
                yield a;
            }
            case VALUE_STRING -> nodes.stringNode(p.getString());
            case VALUE_NUMBER_INT -> switch (p.getNumberType()) {
                case INT -> nodes.numberNode(p.getIntValue());
                case LONG -> nodes.numberNode(p.getLongValue());
                default -> nodes.numberNode(p.getBigIntegerValue());
            };
            case VALUE_NUMBER_FLOAT -> nodes.numberNode(p.getDoubleValue());
            case VALUE_TRUE -> nodes.booleanNode(true);
            case VALUE_FALSE -> nodes.booleanNode(false);
            case VALUE_NULL -> nodes.nullNode();
            default -> throw new StreamReadException(p, "Unexpected token " + t);
        };
    }

    /** A streaming parser over {@code text}, for a reader that wants each token's place. */
    static JsonParser parser(String text) {
        return FACTORY.createParser(ObjectReadContext.empty(), text);
    }

    /** A double as JSON: integral values without ".0", others as Java's shortest round-trip form. */
    public static String number(double d) {
        if (d == Math.rint(d) && Math.abs(d) < 1e15) return Long.toString((long) d);
        return Double.toString(d);
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
