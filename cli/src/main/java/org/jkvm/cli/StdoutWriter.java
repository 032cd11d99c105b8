package org.jkvm.cli;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.UncheckedIOException;

/**
 * jkvm's standard output for picocli's commands. A PrintWriter keeps a failed write to itself (and
 * System.out's PrintStream too), so {@code report > /dev/full} would succeed and
 * {@code plan | head -1} would write on to a closed pipe: here a failed write throws
 * {@link Failed}, which stops the command where it is.
 */
final class StdoutWriter extends OutputStream {
    private final FileOutputStream out = new FileOutputStream(FileDescriptor.out);

    private StdoutWriter() {}

    /** A writer on standard output, in its encoding, flushed at each println as picocli's own is. */
    static PrintWriter create() {
        return new PrintWriter(new OutputStreamWriter(new StdoutWriter(), System.out.charset()), true);
    }

    @Override
    public void write(int b) {
        try {
            out.write(b);
        } catch (IOException e) {
            throw new Failed(e);
        }
    }

    @Override
    public void write(byte[] b, int off, int len) {
        try {
            out.write(b, off, len);
        } catch (IOException e) {
            throw new Failed(e);
        }
    }

    /** A write to standard output failed: the disk is full, or the reader has gone (a closed pipe). */
    static final class Failed extends UncheckedIOException {
        private static final long serialVersionUID = 1L;

        Failed(IOException cause) {
            super("standard output: " + cause.getMessage(), cause);
        }

        /** The reader closed the pipe: it wants no more, which is no error to report ({@code jkvm ... | head}). */
        boolean readerGone() {
            return "Broken pipe".equals(getCause().getMessage());
        }
    }
}
