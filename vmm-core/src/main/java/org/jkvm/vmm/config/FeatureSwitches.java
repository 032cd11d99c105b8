package org.jkvm.vmm.config;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SequencedMap;

/**
 * The {@code name[=on|off],...} syntax the feature options share ({@code --pv}, {@code --cpu}):
 * a bare name means on, later items win, an unknown name is refused with the known ones listed.
 */
final class FeatureSwitches {
    private FeatureSwitches() {}

    /**
     * Applies {@code text} to {@code defaults}, whose keys are the known names.
     *
     * @param setting the option's name in errors, e.g. "pv"
     * @return every known name with its value
     */
    static SequencedMap<String, Boolean> parse(String setting, String text, SequencedMap<String, Boolean> defaults) {
        SequencedMap<String, Boolean> values = new LinkedHashMap<>(defaults);
        for (String item : text.split(",", -1)) {
            String it = item.strip();
            int eq = it.indexOf('=');
            String name = eq < 0 ? it : it.substring(0, eq);
            String value = eq < 0 ? "on" : it.substring(eq + 1);
            boolean on = switch (value) {
                case "on" -> true;
                case "off" -> false;
                default -> throw new SettingException(setting, it, "the value must be on or off");
            };
            if (!values.containsKey(name)) {
                throw new SettingException(setting, it, "unknown feature '" + name + "'; known: "
                        + String.join(", ", defaults.sequencedKeySet()));
            }
            values.put(name, on);
        }
        return values;
    }

    /**
     * The settings as {@link #parse} takes them, e.g. {@code ptrauth=on,sve=off}: the feature
     * options' {@code toString}, in place of the records' own. picocli renders every option's
     * initial value while it parses a command line, and a record's own {@code toString} is an
     * ObjectMethods bootstrap the JVM links at run time (the AOT cache keeps the links of the
     * lambdas and string concatenations its training made, not those): 0.17-0.26 s of the start-up
     * for the two records in the emulated arm64 host, 0.03 s this way (bench/boot/README.md, 2026-12-03).
     */
    static String text(SequencedMap<String, Boolean> values) {
        StringBuilder b = new StringBuilder();
        for (Map.Entry<String, Boolean> e : values.entrySet()) {
            if (!b.isEmpty()) b.append(',');
            b.append(e.getKey()).append('=').append(e.getValue() ? "on" : "off");
        }
        return b.toString();
    }
}
