package org.jkvm.cli.experiment;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jkvm.cli.Json;

/**
 * A small JSON (RFC 8259) reader that keeps where each value and key starts (line and column,
 * both from 1; a tab counts as one column), so that spec errors can point into the file. Also a
 * one-line writer for the results log. No dependencies; strict: no comments, no trailing commas,
 * duplicate keys refused.
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
                case Str s -> Json.quote(s.value());
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
        double doubleValue() {
            return Double.parseDouble(text);
        }

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
        Reader r = new Reader(text);
        r.skipSpace();
        Node n = r.value(0);
        r.skipSpace();
        if (r.i < text.length()) throw r.error("unexpected " + r.describe() + " after the end of the document");
        return n;
    }

    private static final class Reader {
        private static final int MAX_DEPTH = 200;
        final String s;
        int i;
        int line = 1;
        int lineStart;

        Reader(String s) {
            this.s = s;
        }

        Pos pos() {
            return new Pos(line, i - lineStart + 1);
        }

        SyntaxError error(String message) {
            return new SyntaxError(pos(), message);
        }

        String describe() {
            if (i >= s.length()) return "end of file";
            char c = s.charAt(i);
            return c < 0x20 ? String.format("control character U+%04X", (int) c) : "'" + c + "'";
        }

        void skipSpace() {
            while (i < s.length()) {
                char c = s.charAt(i);
                if (c == '\n') {
                    i++;
                    line++;
                    lineStart = i;
                } else if (c == ' ' || c == '\t' || c == '\r') {
                    i++;
                } else {
                    break;
                }
            }
        }

        Node value(int depth) throws SyntaxError {
            if (depth > MAX_DEPTH) throw error("nested too deeply");
            if (i >= s.length()) throw error("expected a value, found end of file");
            Pos p = pos();
            char c = s.charAt(i);
            switch (c) {
                case '{' -> {
                    return object(p, depth);
                }
                case '[' -> {
                    return array(p, depth);
                }
                case '"' -> {
                    return new Str(p, string());
                }
                case 't' -> {
                    word("true");
                    return new Bool(p, true);
                }
                case 'f' -> {
                    word("false");
                    return new Bool(p, false);
                }
                case 'n' -> {
                    word("null");
                    return new Null(p);
                }
                default -> {
                    if (c == '-' || (c >= '0' && c <= '9')) return number(p);
                    throw error("expected a value, found " + describe());
                }
            }
        }

        void word(String w) throws SyntaxError {
            if (!s.startsWith(w, i)) throw error("expected a value, found " + describe());
            i += w.length();
        }

        Obj object(Pos p, int depth) throws SyntaxError {
            i++;
            Map<String, Member> members = new LinkedHashMap<>();
            skipSpace();
            if (i < s.length() && s.charAt(i) == '}') {
                i++;
                return new Obj(p, members);
            }
            while (true) {
                skipSpace();
                if (i >= s.length() || s.charAt(i) != '"') throw error("expected a field name in double quotes, found " + describe());
                Pos kp = pos();
                String key = string();
                if (members.containsKey(key)) throw new SyntaxError(kp, "field \"" + key + "\" appears twice in this object");
                skipSpace();
                if (i >= s.length() || s.charAt(i) != ':') throw error("expected ':' after the field name, found " + describe());
                i++;
                skipSpace();
                members.put(key, new Member(key, kp, value(depth + 1)));
                skipSpace();
                if (i < s.length() && s.charAt(i) == ',') {
                    i++;
                    continue;
                }
                if (i < s.length() && s.charAt(i) == '}') {
                    i++;
                    return new Obj(p, members);
                }
                throw error("expected ',' or '}' in the object, found " + describe());
            }
        }

        Arr array(Pos p, int depth) throws SyntaxError {
            i++;
            List<Node> items = new ArrayList<>();
            skipSpace();
            if (i < s.length() && s.charAt(i) == ']') {
                i++;
                return new Arr(p, items);
            }
            while (true) {
                skipSpace();
                items.add(value(depth + 1));
                skipSpace();
                if (i < s.length() && s.charAt(i) == ',') {
                    i++;
                    continue;
                }
                if (i < s.length() && s.charAt(i) == ']') {
                    i++;
                    return new Arr(p, items);
                }
                throw error("expected ',' or ']' in the list, found " + describe());
            }
        }

        String string() throws SyntaxError {
            Pos start = pos();
            i++; // opening quote
            StringBuilder sb = new StringBuilder();
            while (true) {
                if (i >= s.length()) throw new SyntaxError(start, "unterminated string");
                char c = s.charAt(i);
                if (c == '"') {
                    i++;
                    return sb.toString();
                }
                if (c == '\n') throw new SyntaxError(start, "unterminated string (a string ends on its line)");
                if (c < 0x20) throw error("unescaped " + describe() + " in a string");
                if (c != '\\') {
                    sb.append(c);
                    i++;
                    continue;
                }
                i++;
                if (i >= s.length()) throw new SyntaxError(start, "unterminated string");
                char e = s.charAt(i);
                switch (e) {
                    case '"', '\\', '/' -> sb.append(e);
                    case 'b' -> sb.append('\b');
                    case 'f' -> sb.append('\f');
                    case 'n' -> sb.append('\n');
                    case 'r' -> sb.append('\r');
                    case 't' -> sb.append('\t');
                    case 'u' -> {
                        if (i + 5 > s.length()) throw error("bad \\u escape");
                        try {
                            sb.append((char) Integer.parseInt(s.substring(i + 1, i + 5), 16));
                        } catch (NumberFormatException x) {
                            throw error("bad \\u escape");
                        }
                        i += 4;
                    }
                    default -> throw error("unknown escape \\" + e);
                }
                i++;
            }
        }

        Num number(Pos p) throws SyntaxError {
            int start = i;
            if (s.charAt(i) == '-') i++;
            if (i < s.length() && s.charAt(i) == '0') {
                i++;
            } else if (!digits()) {
                throw error("expected a digit, found " + describe());
            }
            if (i < s.length() && s.charAt(i) == '.') {
                i++;
                if (!digits()) throw error("expected a digit after '.', found " + describe());
            }
            if (i < s.length() && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
                i++;
                if (i < s.length() && (s.charAt(i) == '+' || s.charAt(i) == '-')) i++;
                if (!digits()) throw error("expected a digit in the exponent, found " + describe());
            }
            return new Num(p, s.substring(start, i));
        }

        boolean digits() {
            int st = i;
            while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9') i++;
            return i > st;
        }
    }

    // ---- writing (one line, for JSON lines) ----

    /** Writes maps, lists, strings, numbers (NaN and infinities as null), booleans and null on one line. */
    static String write(Object value) {
        StringBuilder sb = new StringBuilder();
        write(sb, value);
        return sb.toString();
    }

    private static void write(StringBuilder sb, Object v) {
        switch (v) {
            case null -> sb.append("null");
            case String str -> sb.append(Json.quote(str));
            case Boolean b -> sb.append(b);
            case Double d -> sb.append(d.isNaN() || d.isInfinite() ? "null" : number(d));
            case Float f -> write(sb, f.doubleValue());
            case Number n -> sb.append(n);
            case Enum<?> e -> sb.append(Json.quote(e.toString()));
            case Map<?, ?> m -> {
                sb.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    if (!first) sb.append(',');
                    first = false;
                    sb.append(Json.quote(String.valueOf(e.getKey()))).append(':');
                    write(sb, e.getValue());
                }
                sb.append('}');
            }
            case List<?> l -> {
                sb.append('[');
                for (int k = 0; k < l.size(); k++) {
                    if (k > 0) sb.append(',');
                    write(sb, l.get(k));
                }
                sb.append(']');
            }
            default -> throw new IllegalArgumentException("no JSON form for " + v.getClass().getName());
        }
    }

    /** A double as JSON: integral values without ".0", others as Java's shortest round-trip form. */
    static String number(double d) {
        if (d == Math.rint(d) && Math.abs(d) < 1e15) return Long.toString((long) d);
        return Double.toString(d);
    }
}
