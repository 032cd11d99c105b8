package org.jkvm.vmm.profile;

import java.util.List;

/**
 * One line of folded stacks, {@code outer;...;leaf count}: the frames outermost first and the
 * samples that had them.
 *
 * @param frames the frames, outermost first; never empty
 * @param count  the samples
 */
public record FoldedLine(List<String> frames, long count) {
    public FoldedLine {
        frames = List.copyOf(frames);
        if (frames.isEmpty()) throw new IllegalArgumentException("a folded stack with no frame");
    }

    /**
     * Reads a line.
     *
     * @throws IllegalArgumentException quoting the line when it is not {@code frames count}
     */
    public static FoldedLine parse(String line) {
        int space = line.lastIndexOf(' ');
        try {
            if (space <= 0) throw new NumberFormatException("no count");
            long count = Long.parseLong(line.substring(space + 1));
            if (count < 0) throw new NumberFormatException("a negative count");
            return new FoldedLine(List.of(line.substring(0, space).split(";", -1)), count);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not 'frame;...;frame count' (" + e.getMessage() + "): " + line, e);
        }
    }
}
