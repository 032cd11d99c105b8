package org.jkvm.vmm;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** The messages a class logs while a piece of code runs, with its logger set to a level. */
final class LogCapture {
    private LogCapture() {}

    /** The messages {@code source}'s logger gets, at {@code level}, while {@code code} runs. */
    static List<String> messages(Class<?> source, Level level, Runnable code) {
        Logger logger = Logger.getLogger(source.getName());
        List<String> lines = new ArrayList<>();
        Handler h = new Handler() {
            @Override
            public void publish(LogRecord r) {
                lines.add(r.getMessage());
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        h.setLevel(Level.ALL);
        Level before = logger.getLevel();
        logger.setLevel(level);
        logger.addHandler(h);
        try {
            code.run();
        } finally {
            logger.removeHandler(h);
            logger.setLevel(before);
        }
        return lines;
    }
}
