package org.jkvm.experiment;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a guest prints when its workload ends: {@code RESULT <name> <value> <unit> <higher|lower>},
 * e.g. {@code RESULT hackbench 12.84 s lower}.
 */
public record GuestResult(String workload, double value, String unit, Direction better) {
    private static final Pattern LINE = Pattern.compile(
            "(?:^|\\s)RESULT\\s+(\\S+)\\s+(\\S+)\\s+(\\S+)\\s+(higher|lower)\\s*$");

    /**
     * The result on a console line, if it holds one. The marker may follow other text on the line
     * (kernel messages interleave with the guest's output); the line must end with higher or lower.
     */
    public static Optional<GuestResult> parse(String consoleLine) {
        Matcher m = LINE.matcher(consoleLine);
        if (!m.find()) return Optional.empty();
        double v;
        try {
            v = Double.parseDouble(m.group(2));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
        if (!Double.isFinite(v)) return Optional.empty();
        return Optional.of(new GuestResult(m.group(1), v, m.group(3), Direction.parse(m.group(4))));
    }
}
