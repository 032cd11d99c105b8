package org.jkvm.it.arm64;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Several commands in one boot of the emulated host: each step's output is framed by marker
 * lines carrying its name and exit status, so one boot (a few seconds) serves many checks.
 */
public final class Steps {
    private static final Pattern FRAME = Pattern.compile("(?s)=== BEGIN (\\S+)\\n(.*?)=== RC \\1 (\\d+)");

    /** One step's output and exit status. */
    public record Step(int exitCode, String output) {}

    private final StringBuilder script = new StringBuilder();

    /** Adds a step; its stdout and stderr are captured together. */
    public Steps step(String name, String command) {
        script.append("echo '=== BEGIN ").append(name).append("'; ")
                .append("( ").append(command).append(" ) 2>&1; ")
                .append("echo \"=== RC ").append(name).append(" $?\"; ");
        return this;
    }

    /** The shell script running every step in order. */
    public String script() {
        return script.toString();
    }

    /** Step {@code name} of {@code steps}, failing the test when it did not run. */
    public static Step require(Map<String, Step> steps, String name) {
        Step s = steps.get(name);
        if (s == null) throw new AssertionError("step " + name + " did not run; steps seen: " + steps.keySet());
        return s;
    }

    /** The steps found in the host's output, by name. */
    public static Map<String, Step> parse(String output) {
        Map<String, Step> steps = new LinkedHashMap<>();
        Matcher m = FRAME.matcher(output);
        while (m.find()) steps.put(m.group(1), new Step(Integer.parseInt(m.group(3)), m.group(2)));
        return steps;
    }
}
