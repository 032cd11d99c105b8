package org.jkvm.cli;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;

import org.jkvm.vmm.io.FileProblem;
import org.jkvm.vmm.io.InputFile;
import org.jkvm.vmm.io.InputKind;

import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code jkvm run --config FILE}: the file's {@code key = value} lines (UTF-8) are the defaults
 * of the options of the same names. picocli asks for defaults after reading the command line, and
 * only for options it did not give, so the command line wins; the values pass the options' own
 * converters. {@code disk} is one image (a line per key): more come with {@code --disk} on the
 * command line, which then replaces it.
 */
final class RunConfigFile implements IDefaultValueProvider {
    static final String OPTION = "--config";
    /** A few lines of settings: 64 KiB is plenty. */
    private static final InputKind KIND = new InputKind("a config file", 64 << 10);
    private static final List<String> KEYS = List.of("kernel", "initrd", "cmdline", "cpus", "memory", "pin", "pv", "pmu", "timeout",
            "disk", "rng", "net");

    private Path loaded;
    private Properties settings;

    @Override
    public String defaultValue(ArgSpec arg) throws IOException {
        if (!(arg instanceof OptionSpec option)) return null;
        Path file = arg.command().findOption(OPTION).getValue();
        if (file == null) return null;
        return settings(file).getProperty(option.longestName().replaceFirst("^--", ""));
    }

    private Properties settings(Path file) throws IOException {
        if (file.equals(loaded)) return settings;
        Properties p = new Properties();
        try {
            p.load(new StringReader(InputFile.text(file, KIND)));
        } catch (FileProblem e) {
            throw new UserError(OPTION + " " + e.getMessage());
        } catch (IllegalArgumentException e) {
            // Properties' only complaint, and its message names neither the file nor the fix.
            throw new UserError(OPTION + " " + file + ": a malformed \\uXXXX escape (write a backslash as \\\\)");
        }
        for (String key : p.stringPropertyNames()) {
            if (!KEYS.contains(key)) throw new UserError(OPTION + " " + file + ": unknown setting '" + key + "'");
        }
        loaded = file;
        settings = p;
        return p;
    }
}
