package org.jkvm.cli;

import java.lang.System.Logger.Level;
import java.nio.file.FileSystemException;

import org.jkvm.kvm.KvmException;
import org.jkvm.vmm.config.SettingException;
import org.jkvm.vmm.io.FileProblem;

import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.ParseResult;

/**
 * Turns an exception escaping a command into one line on stderr and an exit code: problems
 * the user can fix (no /dev/kvm, no permission, bad input) are {@link ExitCode#USAGE}; other
 * failures are {@link ExitCode#FAILURE}. A bad setting is named as its option ({@code --memory}), a
 * file problem says what is wrong with which file (never a bare path), and a closed standard
 * output says nothing: its reader has stopped listening.
 * The stack trace goes to the log at DEBUG.
 */
final class ErrorHandler implements IExecutionExceptionHandler {
    private static final System.Logger LOG = System.getLogger(ErrorHandler.class.getName());

    @Override
    public int handleExecutionException(Exception e, CommandLine cl, ParseResult parsed) {
        LOG.log(Level.DEBUG, "command failed", e);
        if (e instanceof StdoutWriter.Failed f && f.readerGone()) return ExitCode.FAILURE;
        String message = switch (e) {
            case SettingException s -> s.describe("--" + s.setting());
            case FileSystemException f -> FileProblem.of(f).getMessage();
            default -> e.getMessage();
        };
        cl.getErr().println("jkvm: " + message);
        return isUsersToFix(e) ? ExitCode.USAGE : ExitCode.FAILURE;
    }

    private static boolean isUsersToFix(Exception e) {
        if (e instanceof UserError || e instanceof IllegalArgumentException || e instanceof FileProblem) return true;
        return e instanceof KvmException k && k.operation().equals("open");
    }
}
