package org.jkvm.experiment;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The result of a command workload: the throughput in stress-ng's metrics table
 * ({@code --metrics-brief}), one row per stressor after the run, e.g.
 * <pre>
 * stress-ng: metrc: [283] stressor       bogo ops real time  usr time  sys time   bogo ops/s     bogo ops/s
 * stress-ng: metrc: [283]                           (secs)    (secs)    (secs)   (real time) (usr+sys time)
 * stress-ng: metrc: [283] futex            169634      5.00      0.27      4.54     33925.46       35271.94
 * </pre>
 * (older versions tag the rows {@code info:}). The result is the bogo ops per second of real
 * time, summed over the stressors the command ran, in {@value #UNIT}; higher is better.
 */
final class StressNgMetrics {
    /** The unit of the result. */
    static final String UNIT = "bogo-ops/s";

    /** A row: stressor, bogo ops, real, usr and sys seconds, bogo ops/s (real time); anything may follow. */
    private static final Pattern ROW = Pattern.compile("stress-ng:\\s+(?:metrc|info):\\s+\\[\\d+]\\s+([a-z0-9][a-z0-9_-]*)"
            + "\\s+(\\d+)\\s+(\\d+\\.\\d+)\\s+(\\d+\\.\\d+)\\s+(\\d+\\.\\d+)\\s+(\\d+\\.\\d+)(?:\\s|$)");

    private StressNgMetrics() {}

    /**
     * The result a console holds, as the workload {@code name}: empty when it has no metrics row.
     * A stressor listed twice (a console line repeated) counts once, its last row.
     */
    static Optional<GuestResult> result(String name, String console) {
        Map<String, Double> perStressor = new LinkedHashMap<>();
        for (String line : console.lines().toList()) {
            Matcher m = ROW.matcher(line);
            if (m.find()) perStressor.put(m.group(1), Double.parseDouble(m.group(6)));
        }
        if (perStressor.isEmpty()) return Optional.empty();
        double sum = perStressor.values().stream().mapToDouble(Double::doubleValue).sum();
        return Optional.of(new GuestResult(name, sum, UNIT, Direction.HIGHER));
    }
}
