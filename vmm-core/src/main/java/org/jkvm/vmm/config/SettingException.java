package org.jkvm.vmm.config;

/**
 * A VM setting whose value cannot work. It names the setting by its key (kernel, memory,
 * pvlock, ...), not by how a front end spells it, so each front end says it its own way:
 * {@code --memory} on jkvm's command line, {@code "memory"} at its line in an experiment spec.
 */
public class SettingException extends IllegalArgumentException {
    private final String setting;
    private final String value;
    private final String problem;

    /**
     * @param setting the setting's key
     * @param value   the value given, or null where none was
     * @param problem what is wrong and what would be right
     */
    public SettingException(String setting, Object value, String problem) {
        super(describe(setting, value == null ? null : value.toString(), problem));
        this.setting = setting;
        this.value = value == null ? null : value.toString();
        this.problem = problem;
    }

    /** The setting's key. */
    public String setting() {
        return setting;
    }

    /** The value given as the message shows it, or null where none was. */
    public String value() {
        return value;
    }

    /** What is wrong and what would be right. */
    public String problem() {
        return problem;
    }

    /** The message with the setting called {@code name}, e.g. {@code --memory 63M: give at least 64M}. */
    public String describe(String name) {
        return describe(name, value, problem);
    }

    private static String describe(String name, String value, String problem) {
        return name + (value == null ? "" : " " + value) + ": " + problem;
    }
}
