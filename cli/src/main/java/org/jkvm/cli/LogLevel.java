package org.jkvm.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.System.Logger.Level;
import java.util.Locale;
import java.util.logging.ConsoleHandler;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code --log-level}: how much of jkvm's System.Logger output reaches stderr. The JDK routes
 * System.Logger to java.util.logging; this sets the level of jkvm's loggers ({@code org.jkvm})
 * and gives them a handler of their own writing one line per record (the JDK's own loggers stay
 * at their default).
 */
final class LogLevel {
    /** Held here: java.util.logging keeps loggers only weakly, and a collected one forgets its level. */
    private static final Logger JKVM = Logger.getLogger("org.jkvm");

    private LogLevel() {}

    /** The property java.util.logging's default formatter takes its line format from. */
    private static final String JDK_FORMAT = "java.util.logging.SimpleFormatter.format";

    /**
     * Without --log-level the JDK's own handler prints jkvm's records: one line each, as this
     * class's do, not the JDK's default of a dated line and then the message. Call before anything logs.
     */
    static void oneLineByDefault() {
        if (System.getProperty(JDK_FORMAT) == null) System.setProperty(JDK_FORMAT, "jkvm: %4$s %3$s: %5$s%6$s%n");
    }

    /** Sends records at {@code level} and above to stderr. */
    static void apply(Level level) {
        java.util.logging.Level jul = switch (level) {
            case ALL -> java.util.logging.Level.ALL;
            case TRACE -> java.util.logging.Level.FINER;
            case DEBUG -> java.util.logging.Level.FINE;
            case INFO -> java.util.logging.Level.INFO;
            case WARNING -> java.util.logging.Level.WARNING;
            case ERROR -> java.util.logging.Level.SEVERE;
            case OFF -> java.util.logging.Level.OFF;
        };
        for (Handler h : JKVM.getHandlers()) JKVM.removeHandler(h);
        Handler stderr = new ConsoleHandler();
        stderr.setFormatter(new OneLine());
        stderr.setLevel(jul);
        JKVM.addHandler(stderr);
        JKVM.setUseParentHandlers(false);
        JKVM.setLevel(jul);
    }

    /** "jkvm: FINE org.jkvm.vmm.StartupMarks: message" (java.util.logging's level names), and the stack trace if any. */
    private static final class OneLine extends Formatter {
        @Override
        public String format(LogRecord r) {
            StringBuilder b = new StringBuilder("jkvm: ").append(r.getLevel().getName()).append(' ')
                    .append(r.getLoggerName()).append(": ").append(formatMessage(r)).append(System.lineSeparator());
            if (r.getThrown() != null) {
                StringWriter trace = new StringWriter();
                r.getThrown().printStackTrace(new PrintWriter(trace));
                b.append(trace);
            }
            return b.toString();
        }
    }

    /** A System.Logger level by its name, in any case. */
    static final class Name implements ITypeConverter<Level> {
        @Override
        public Level convert(String value) {
            try {
                return Level.valueOf(value.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException("'" + value + "' is not a log level: use OFF, ERROR, WARNING, INFO,"
                        + " DEBUG, TRACE or ALL");
            }
        }
    }
}
