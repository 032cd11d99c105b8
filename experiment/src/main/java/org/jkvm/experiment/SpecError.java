package org.jkvm.experiment;

/**
 * One problem in an experiment spec, printed like a compiler message:
 * {@code overcommit.json:12:7: variants[1].pvlock: "fast" is not one of off, userspace, kernel, auto, track-only}.
 *
 * @param file    the spec file as the user named it
 * @param line    1-based line, or 0 when the problem has no place (the file as a whole)
 * @param col     1-based column (characters; a tab is one)
 * @param field   the field's path, e.g. {@code variants[1].pvlock}, or "" for the document
 * @param message what is wrong and, where it helps, what would be right
 */
public record SpecError(String file, int line, int col, String field, String message) {
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(file);
        if (line > 0) sb.append(':').append(line).append(':').append(col);
        sb.append(": ");
        if (!field.isEmpty()) sb.append(field).append(": ");
        return sb.append(message).toString();
    }
}
