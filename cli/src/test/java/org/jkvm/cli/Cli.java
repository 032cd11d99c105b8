package org.jkvm.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;

import picocli.CommandLine;

/** Runs {@code jkvm} in-process with its stdout and stderr captured. */
record Cli(int exitCode, String out, String err) {
    static Cli run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine(List.of(args));
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new Cli(code, out.toString(), err.toString());
    }

    /** The non-empty lines of stderr. */
    String[] errLines() {
        return err.lines().filter(l -> !l.isBlank()).toArray(String[]::new);
    }
}
