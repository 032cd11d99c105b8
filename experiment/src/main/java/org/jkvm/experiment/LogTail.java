package org.jkvm.experiment;

/**
 * What follows the last newline of a results log, which a crash or a killed driver can leave
 * behind, and so what {@link ResultsLog#repair} did about it.
 *
 * @param kind what it is
 * @param text the text after the last newline ("" for {@link Kind#COMPLETE})
 */
public record LogTail(Kind kind, String text) {
    /** A log that ends with its newline, or is empty: nothing to repair. */
    public static final LogTail NONE = new LogTail(Kind.COMPLETE, "");

    /** The kinds of ending. */
    public enum Kind {
        /** Every line ends with a newline. */
        COMPLETE,
        /** A complete result without its newline: kept, and the newline added. */
        UNTERMINATED,
        /** A line cut off mid-write: dropped. */
        TORN
    }
}
