package org.jkvm.cli;

import org.jkvm.vmm.config.SettingException;

import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.TypeConversionException;

/**
 * An option value that does not convert, or a bad --config file, as one line on stderr and exit
 * code 2, the way {@link ErrorHandler} reports bad input found while running. Other mistakes on the
 * command line (an unknown option, a missing value) keep picocli's message and hints.
 */
final class BadValueHandler implements IParameterExceptionHandler {
    private final IParameterExceptionHandler others;

    BadValueHandler(IParameterExceptionHandler others) {
        this.others = others;
    }

    @Override
    public int handleParseException(ParameterException e, String[] args) throws Exception {
        String message = message(e);
        if (message == null) return others.handleParseException(e, args);
        e.getCommandLine().getErr().println("jkvm: " + message);
        return ExitCode.USAGE;
    }

    /** The line for a refused value, or null when {@code e} is another kind of parse error. */
    static String message(ParameterException e) {
        return switch (e.getCause()) {
            case TypeConversionException t when e.getArgSpec() instanceof OptionSpec o ->
                    o.longestName() + " " + e.getValue() + ": " + t.getMessage();
            case SettingException b when e.getArgSpec() instanceof OptionSpec o -> b.describe(o.longestName());
            case UserError u -> u.getMessage();
            case IllegalArgumentException i -> i.getMessage();
            case null, default -> null;
        };
    }
}
