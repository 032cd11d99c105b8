package org.jkvm.cli;

import java.lang.System.Logger.Level;

import org.jkvm.kvm.KvmException;
import org.jkvm.vmm.config.SettingException;

import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.ParseResult;

/**
 * Turns an exception escaping a command into one line on stderr and an exit code: problems
 * the user can fix (no /dev/kvm, no permission, bad input) are {@link ExitCode#USAGE}; other
 * failures are {@link ExitCode#FAILURE}. A bad setting is named as its option ({@code --memory}).
 * The stack trace goes to the log at DEBUG.
 */
final class ErrorHandler implements IExecutionExceptionHandler {
    private static final System.Logger LOG = System.getLogger(ErrorHandler.class.getName());

    @Override
    public int handleExecutionException(Exception e, CommandLine cl, ParseResult parsed) {
        LOG.log(Level.DEBUG, "command failed", e);
        String message = e instanceof SettingException s ? s.describe("--" + s.setting()) : e.getMessage();
        cl.getErr().println("jkvm: " + message);
        return isUsersToFix(e) ? ExitCode.USAGE : ExitCode.FAILURE;
    }

    private static boolean isUsersToFix(Exception e) {
        if (e instanceof UserError || e instanceof IllegalArgumentException) return true;
        return e instanceof KvmException k && k.operation().equals("open");
    }
}
