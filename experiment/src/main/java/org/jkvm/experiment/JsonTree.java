package org.jkvm.experiment;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.exc.UnexpectedEndOfInputException;

/**
 * A JSON tree that keeps where each value and key starts (line and column, both from 1; a tab
 * counts as one column), so that spec errors can point into the file. Built from Jackson's
 * streaming parser, whose token locations a plain Jackson tree drops. Strict: no comments, no
 * trailing commas, duplicate keys refused.
 */
final class JsonTree {
    private JsonTree() {}

    /** A place in the text. */
    record Pos(int line, int col) {
        @Override
        public String toString() {
            return line + ":" + col;
        }
    }

    /** A JSON value and where it starts. */
    sealed interface Node permits Obj, Arr, Str, Num, Bool, Null {
        Pos pos();

        /** What the value is, for messages: object, array, string, number, true/false, null. */
        default String kind() {
            return switch (this) {
                case Obj o -> "an object";
                case Arr a -> "a list";
                case Str s -> "a string";
                case Num n -> "a number";
                case Bool b -> "a boolean";
                case Null n -> "null";
            };
        }

        /** The value as the spec author wrote it, shortened, for messages. */
        default String show() {
            return switch (this) {
                case Str s -> Json.line(s.value());
                case Num n -> n.text();
                case Bool b -> String.valueOf(b.value());
                case Null n -> "null";
                case Obj o -> "{...}";
                case Arr a -> "[...]";
            };
        }
    }

    /** An object member: its key's position and its value. */
    record Member(String key, Pos keyPos, Node value) {}

    record Obj(Pos pos, Map<String, Member> members) implements Node {}

    record Arr(Pos pos, List<Node> items) implements Node {}

    record Str(Pos pos, String value) implements Node {}

    /** A number with its source text (so integers stay exact). */
    record Num(Pos pos, String text) implements Node {
        boolean isIntegral() {
            return text.indexOf('.') < 0 && text.indexOf('e') < 0 && text.indexOf('E') < 0;
        }
    }

    record Bool(Pos pos, boolean value) implements Node {}

    record Null(Pos pos) implements Node {}

    /** A syntax error at a position. */
    static final class SyntaxError extends Exception {
        private static final long serialVersionUID = 1L;
        final transient Pos pos;

        SyntaxError(Pos pos, String message) {
            super(message);
            this.pos = pos;
        }
    }

    /** Parses one JSON value filling the whole text (whitespace around it allowed). */
    static Node parse(String text) throws SyntaxError {
        try (JsonParser p = Json.parser(text)) {
            if (p.nextToken() == null) throw new SyntaxError(pos(p.currentLocation()), "expected a value, found end of file");
            Node root = value(p);
            if (p.nextToken() != null) {
                char c = text.charAt((int) p.currentTokenLocation().getCharOffset());
                throw new SyntaxError(pos(p.currentTokenLocation()), "unexpected '" + c + "' after the end of the document");
            }
            return root;
        } catch (JacksonException e) {
            throw new SyntaxError(pos(e.getLocation()), e.getOriginalMessage());
        }
    }

    /** A place; none (line 0) for an error Jackson gives no place, e.g. nesting too deep. */
    private static Pos pos(TokenStreamLocation at) {
        return at == null ? new Pos(0, 0) : new Pos(at.getLineNr(), at.getColumnNr());
    }

    /** The value whose first token is the parser's current one. */
    private static Node value(JsonParser p) throws SyntaxError {
        Pos at = pos(p.currentTokenLocation());
        return switch (p.currentToken()) {
            case START_OBJECT -> object(p, at);
            case START_ARRAY -> array(p, at);
            case VALUE_STRING -> new Str(at, string(p, at));
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> new Num(at, p.getString());
            case VALUE_TRUE -> new Bool(at, true);
            case VALUE_FALSE -> new Bool(at, false);
            case VALUE_NULL -> new Null(at);
            default -> throw new SyntaxError(at, "expected a value, found " + p.currentToken());
        };
    }

    /** Jackson reads a string value when asked for it: a missing closing quote shows here. */
    private static String string(JsonParser p, Pos at) throws SyntaxError {
        try {
            return p.getString();
        } catch (UnexpectedEndOfInputException e) {
            throw new SyntaxError(at, "unterminated string");
        }
    }

    private static Obj object(JsonParser p, Pos at) throws SyntaxError {
        Map<String, Member> members = new LinkedHashMap<>();
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
            Pos keyAt = pos(p.currentTokenLocation());
            String key = p.currentName();
            if (members.containsKey(key)) throw new SyntaxError(keyAt, "field \"" + key + "\" appears twice in this object");
            p.nextToken();
            members.put(key, new Member(key, keyAt, value(p)));
        }
        return new Obj(at, members);
    }

    private static Arr array(JsonParser p, Pos at) throws SyntaxError {
        List<Node> items = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) items.add(value(p));
        return new Arr(at, items);
    }
}
