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
final class HelpOptions {
    private HelpOptions() {}

    /** Adds {@code -h, --help} and {@code -V, --version}. */
    static void addTo(CommandSpec spec) {
        spec.addOption(OptionSpec.builder("-h", "--help").usageHelp(true)
                .description("Show this help message and exit.").build());
        spec.addOption(OptionSpec.builder("-V", "--version").versionHelp(true)
                .description("Print version information and exit.").build());
    }

    /** The exit-code list of {@code code:meaning} lines, in their order. */
    static Map<String, String> exitCodes(String... lines) {
        Map<String, String> codes = new LinkedHashMap<>();
        for (String line : lines) {
            int colon = line.indexOf(':');
            codes.put(line.substring(0, colon), line.substring(colon + 1));
        }
        return codes;
    }
}
