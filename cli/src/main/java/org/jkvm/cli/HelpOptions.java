package org.jkvm.cli;

import java.util.LinkedHashMap;
import java.util.Map;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * What picocli's {@code mixinStandardHelpOptions} and {@code exitCodeList} give an annotated
 * command, for the commands jkvm builds programmatically ({@link OptionBinding} says why): the
 * same options, texts and exit-code lists.
 */
public final class HelpOptions {
    private HelpOptions() {}

    /**
     * The model of {@code command}, described by {@code description}, with the help options; for a
     * command whose help lists its options sorted by name, as the annotations' default did.
     */
    public static CommandSpec command(Object command, String description) {
        CommandSpec spec = CommandSpec.wrapWithoutInspection(command);
        spec.usageMessage().description(description);
        addTo(spec);
        return spec;
    }

    /** Adds {@code -h, --help} and {@code -V, --version}. */
    public static void addTo(CommandSpec spec) {
        spec.addOption(OptionSpec.builder("-h", "--help").usageHelp(true)
                .description("Show this help message and exit.").build());
        spec.addOption(OptionSpec.builder("-V", "--version").versionHelp(true)
                .description("Print version information and exit.").build());
    }

    /** The exit-code list of {@code code:meaning} lines, in their order. */
    public static Map<String, String> exitCodes(String... lines) {
        Map<String, String> codes = new LinkedHashMap<>();
        for (String line : lines) {
            int colon = line.indexOf(':');
            codes.put(line.substring(0, colon), line.substring(colon + 1));
        }
        return codes;
    }
}
