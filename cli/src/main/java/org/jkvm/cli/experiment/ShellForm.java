package org.jkvm.cli.experiment;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A flat map as bash assignments for a driver script to {@code eval}, one a line: a value as
 * {@code NAME='text'}, a list as an array {@code NAME=('a' 'b')}, a map as an associative array
 * {@code declare -A NAME=(['key']='value')}. Every value is single-quoted, so nothing in it is
 * expanded.
 */
final class ShellForm {
    private ShellForm() {}

    /** The assignments, each name being {@code prefix} + the key. */
    static String of(String prefix, Map<String, ?> values) {
        StringBuilder sb = new StringBuilder();
        values.forEach((key, v) -> {
            String name = prefix + key;
            switch (v) {
                case List<?> l -> sb.append(name).append("=(").append(l.stream().map(ShellForm::quote)
                        .collect(Collectors.joining(" "))).append(')');
                case Map<?, ?> m -> sb.append("declare -A ").append(name).append("=(").append(m.entrySet().stream()
                        .map(e -> "[" + quote(e.getKey()) + "]=" + quote(e.getValue())).collect(Collectors.joining(" ")))
                        .append(')');
                default -> sb.append(name).append('=').append(quote(v));
            }
            sb.append('\n');
        });
        return sb.toString();
    }

    private static String quote(Object v) {
        return "'" + String.valueOf(v).replace("'", "'\\''") + "'";
    }
}
