package org.jkvm.cli;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

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
 * converters. {@code disk} is one image (a line per key); {@code disk.2}, {@code disk.3}, ... are
 * more, in the order of their numbers after {@code disk} (passed on to {@code --disk} a line
 * each, which its split takes apart). {@code --disk} on the command line replaces them all.
 */
final class RunConfigFile implements IDefaultValueProvider {
    static final String OPTION = "--config";
    /** A few lines of settings: 64 KiB is plenty. */
    private static final InputKind KIND = new InputKind("a config file", 64 << 10);
    private static final List<String> KEYS = List.of("kernel", "initrd", "cmdline", "cpus", "memory", "pin", "vmm-pin", "pv", "pmu", "cpu",
            "timeout", "disk", "rng", "net");
    /** The keys of disks after the first: {@code disk.2}, {@code disk.3}, ... */
    private static final Pattern MORE_DISKS = Pattern.compile("disk\\.([1-9][0-9]{0,8})");
    /** What {@code --disk}'s split takes apart: a line break, which no path given on a command line holds. */
    static final String DISK_SEPARATOR = "\n";

    private Path loaded;
    private Properties settings;

    @Override
    public String defaultValue(ArgSpec arg) throws IOException {
        if (!(arg instanceof OptionSpec option)) return null;
        Path file = arg.command().findOption(OPTION).getValue();
        if (file == null) return null;
        Properties p = settings(file);
        String key = option.longestName().replaceFirst("^--", "");
        return key.equals("disk") ? disks(p) : p.getProperty(key);
    }

    /** {@code disk}, then {@code disk.N} by N, a line each; null when the file gives none. */
    private static String disks(Properties p) {
        List<String> keys = p.stringPropertyNames().stream().filter(k -> MORE_DISKS.matcher(k).matches())
                .sorted(Comparator.comparingInt(k -> Integer.parseInt(k.substring("disk.".length())))).toList();
        if (keys.isEmpty()) return p.getProperty("disk");
        String first = p.getProperty("disk");
        String more = keys.stream().map(p::getProperty).collect(Collectors.joining(DISK_SEPARATOR));
        return first == null ? more : first + DISK_SEPARATOR + more;
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
            if (!KEYS.contains(key) && !MORE_DISKS.matcher(key).matches()) throw new UserError(OPTION + " " + file + ": unknown setting '" + key + "'");
        }
        loaded = file;
        settings = p;
        return p;
    }
}
