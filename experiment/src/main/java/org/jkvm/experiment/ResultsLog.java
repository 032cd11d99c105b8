package org.jkvm.experiment;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.jkvm.vmm.io.FileProblem;
import org.jkvm.vmm.io.InputFile;
import org.jkvm.vmm.io.InputKind;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * The results of an experiment as JSON lines, one {@link RunResult} per line, append-only.
 *
 * <p>A crash can leave the last line without its newline ({@link LogTail}): a complete result
 * there counts, and {@link #open} ends it with its newline; a line cut off mid-write is ignored,
 * and {@link #open} cuts it off, so that the next append starts on a fresh line. Any other line
 * that is not a result is an error naming its line (or, when asked, skipped and counted). An id
 * may appear more than once (a failed run retried): the last line wins.
 *
 * <p>The log is read a line at a time, no line longer than {@link #MAX_LINE}. One process at a
 * time may have it open to append ({@link LogLock}); each append is one write of a whole line at
 * the end of the file (append mode), flushed to the disk before it returns.
 */
public final class ResultsLog implements AutoCloseable {
    /** The longest line a log may have; a result takes about 500 bytes, 2-4 KiB with KVM's statistics. */
    public static final int MAX_LINE = 1 << 20;
    private static final InputKind KIND = new InputKind("a results log", Long.MAX_VALUE);

    private final Path file;
    private final LogLock lock;
    private final FileChannel channel;
    private final List<RunResult> results;
    private final LogTail tail;

    private ResultsLog(Path file, LogLock lock, FileChannel channel, List<RunResult> results, LogTail tail) {
        this.file = file;
        this.lock = lock;
        this.channel = channel;
        this.results = results;
        this.tail = tail;
    }

    /**
     * What {@link #read(Path, boolean)} found.
     *
     * @param results      the results, in file order
     * @param skippedLines the numbers of the lines skipped as no result, in order
     */
    public record Contents(List<RunResult> results, List<Long> skippedLines) {
        public Contents {
            results = List.copyOf(results);
            skippedLines = List.copyOf(skippedLines);
        }
    }

    /**
     * Opens (creating if missing) a log to resume: takes its lock, reads what is there and
     * repairs its last line.
     *
     * @throws FileProblem when another process has it open, or it is no results log
     */
    public static ResultsLog open(Path file) throws IOException {
        if (Files.exists(file)) InputFile.requireRegular(file, KIND);
        Path parent = file.toAbsolutePath().getParent();
        LogLock lock;
        try {
            if (parent != null) Files.createDirectories(parent);
            lock = LogLock.take(file);
        } catch (FileSystemException e) {
            throw FileProblem.of(e);
        }
        FileChannel ch = null;
        try {
            ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            Scan s = scan(file, false);
            switch (s.tail().kind()) {
                case COMPLETE -> { }
                case UNTERMINATED -> {
                    ch.write(ByteBuffer.wrap(new byte[] {'\n'}));
                    ch.force(false);
                }
                case TORN -> ch.truncate(s.complete());
            }
            return new ResultsLog(file, lock, ch, new ArrayList<>(s.results()), s.tail());
        } catch (IOException | RuntimeException e) {
            if (ch != null) ch.close();
            lock.close();
            if (e instanceof FileSystemException f) throw FileProblem.of(f);
            throw e;
        }
    }

    /**
     * Repairs a log's last line as {@link #open} does, without reading on: a complete result that
     * lacks its newline gets it, a torn line is cut off. A missing file is left missing.
     *
     * @return what the last line was
     */
    public static LogTail repair(Path file) throws IOException {
        if (!Files.exists(file)) return LogTail.NONE;
        try (ResultsLog log = open(file)) {
            return log.tail;
        }
    }

    /** Reads a log without changing it; a torn last line is ignored. A missing file has no results. */
    public static List<RunResult> read(Path file) throws IOException {
        return read(file, false).results();
    }

    /**
     * Reads a log without changing it; a torn last line is ignored. A missing file has no results.
     *
     * @param skipBadLines skip each line that is no result (and count it) rather than stop at the first
     */
    public static Contents read(Path file, boolean skipBadLines) throws IOException {
        if (!Files.exists(file)) return new Contents(List.of(), List.of());
        Scan s = scan(file, skipBadLines);
        return new Contents(s.results(), s.skipped());
    }

    /** Appends one result as a line and forces it to the disk. */
    public synchronized void append(RunResult r) throws IOException {
        ByteBuffer buf = ByteBuffer.wrap((toJson(r) + "\n").getBytes(StandardCharsets.UTF_8));
        while (buf.hasRemaining()) channel.write(buf);
        channel.force(false);
        results.add(r);
    }

    /** Every result read or appended, in file order (an id repeated appears each time). */
    public synchronized List<RunResult> results() {
        return List.copyOf(results);
    }

    /** The last result of each id. */
    public synchronized Map<String, RunResult> latest() {
        return latest(results);
    }

    /** Ids whose last result succeeded: done, not to run again. */
    public synchronized Set<String> doneIds() {
        return doneIds(results);
    }

    /** Ids whose last result in {@code results} succeeded. */
    public static Set<String> doneIds(List<RunResult> results) {
        Set<String> s = new TreeSet<>();
        latest(results).forEach((id, r) -> {
            if (r.ok()) s.add(id);
        });
        return s;
    }

    /** Ids with any result, failed ones included (for a runner that does not retry failures). */
    public synchronized Set<String> attemptedIds() {
        return new TreeSet<>(latest(results).keySet());
    }

    public Path file() {
        return file;
    }

    @Override
    public synchronized void close() throws IOException {
        try (lock) {
            channel.close();
        }
    }

    /** The last result of each id, in order of first appearance. */
    public static Map<String, RunResult> latest(List<RunResult> results) {
        Map<String, RunResult> m = new LinkedHashMap<>();
        for (RunResult r : results) m.put(r.id(), r);
        return Collections.unmodifiableMap(m);
    }

    /** A log's results, the lines skipped, the length of its newline-terminated part, and what follows that. */
    private record Scan(List<RunResult> results, List<Long> skipped, long complete, LogTail tail) {}

    private static Scan scan(Path file, boolean skipBadLines) throws IOException {
        List<RunResult> out = new ArrayList<>();
        List<Long> skipped = new ArrayList<>();
        LogLines.Rest rest;
        try (InputStream in = InputFile.open(file, KIND)) {
            rest = LogLines.read(in, MAX_LINE, (number, offset, bytes, length, overlong) -> {
                try {
                    RunResult r = result(file, number, offset, bytes, length, overlong);
                    if (r != null) out.add(r);
                } catch (FileProblem e) {
                    if (!skipBadLines) throw e;
                    skipped.add(number);
                }
            });
        }
        if (rest.bytes().length == 0 && !rest.overlong()) return new Scan(out, skipped, rest.complete(), LogTail.NONE);
        if (rest.overlong()) {
            if (!skipBadLines) throw overlong(file, rest.number());
            skipped.add(rest.number());
            return new Scan(out, skipped, rest.complete(), LogTail.NONE);
        }
        String text = new String(rest.bytes(), StandardCharsets.UTF_8);
        // a complete record is valid UTF-8, as every terminated line must be; a cut can split a character
        if (InputFile.badUtf8(rest.bytes(), 0, rest.bytes().length) >= 0) {
            return new Scan(out, skipped, rest.complete(), new LogTail(LogTail.Kind.TORN, text));
        }
        try {
            out.add(fromJson(text.strip()));
            return new Scan(out, skipped, rest.complete(), new LogTail(LogTail.Kind.UNTERMINATED, text));
        } catch (RuntimeException e) {
            return new Scan(out, skipped, rest.complete(), new LogTail(LogTail.Kind.TORN, text));
        }
    }

    /** One newline-terminated line as a result, or null for a blank line. */
    private static RunResult result(Path file, long number, long offset, byte[] bytes, int length, boolean overlong)
            throws FileProblem {
        if (overlong) throw overlong(file, number);
        String where = file + ":" + number;
        int bad = InputFile.badUtf8(bytes, 0, length);
        if (bad >= 0) throw new FileProblem(where, "not UTF-8 text (bad byte at offset " + (offset + bad) + ")");
        String line = new String(bytes, 0, length, StandardCharsets.UTF_8).strip();
        if (line.isEmpty()) return null;
        try {
            return fromJson(line);
        } catch (JacksonException e) {
            String col = e.getLocation() == null ? "" : ":" + e.getLocation().getColumnNr();
            throw new FileProblem(where + col, "not a result line: " + e.getOriginalMessage());
        } catch (RuntimeException e) {
            throw new FileProblem(where, "not a result line: " + e.getMessage());
        }
    }

    private static FileProblem overlong(Path file, long number) {
        return new FileProblem(file + ":" + number, "a line of more than " + InputFile.size(MAX_LINE) + "; not a results log?");
    }

    /** One result as one line of JSON (no newline). */
    public static String toJson(RunResult r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", r.id());
        m.put("variant", r.variant());
        m.put("workload", r.workload());
        m.put("repetition", r.repetition());
        m.put("warmup", r.warmup());
        m.put("value", r.value());
        m.put("unit", r.unit());
        m.put("better", r.better() == null ? null : r.better().toString());
        m.put("wall_s", r.wallSeconds());
        m.put("started", r.started() == null ? null : r.started().toString());
        m.put("vm_values", r.vmValues());
        m.put("host", r.host());
        m.put("error", r.error());
        if (!r.kernels().isEmpty()) m.put("kernels", r.kernels());
        if (r.kvm() != null) m.put("kvm", r.kvm().toMap());
        if (r.guest() != null) m.put("guest", r.guest().toMap());
        if (!r.placement().isEmpty()) m.put("placement", r.placement());
        return Json.line(m);
    }

    /** Parses a line {@link #toJson} wrote. */
    static RunResult fromJson(String line) {
        JsonNode o = Json.read(line);
        if (!o.isObject()) throw new IllegalArgumentException("not an object");
        List<Double> vms = new ArrayList<>();
        JsonNode values = o.get("vm_values");
        if (values != null && values.isArray()) {
            for (JsonNode n : values.values()) vms.add(number(n, "vm_values"));
        }
        Map<String, Number> host = new LinkedHashMap<>();
        JsonNode h = o.get("host");
        if (h != null && h.isObject()) {
            for (Map.Entry<String, JsonNode> e : h.properties()) host.put(e.getKey(), exact(e.getValue(), "host." + e.getKey()));
        }
        Map<String, String> kernels = strings(o, "kernels");
        String better = str(o, "better");
        String started = str(o, "started");
        Instant at;
        try {
            at = started == null ? null : Instant.parse(started);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("started: " + e.getMessage());
        }
        String id = str(o, "id");
        if (id == null) throw new IllegalArgumentException("no id");
        JsonNode warmup = o.get("warmup");
        JsonNode kvm = o.get("kvm");
        JsonNode guest = o.get("guest");
        return new RunResult(id, str(o, "variant"), str(o, "workload"), (int) num(o, "repetition"),
                warmup != null && warmup.isBoolean() && warmup.booleanValue(),
                num(o, "value"), str(o, "unit"), better == null ? null : Direction.parse(better),
                num(o, "wall_s"), at, vms, host, str(o, "error"), kernels,
                kvm == null || kvm.isNull() ? null : RunKvmStats.of(kvm),
                guest == null || guest.isNull() ? null : RunGuestStats.of(guest), strings(o, "placement"));
    }

    /** An object of strings ({@code kernels}, {@code placement}); empty when absent. */
    private static Map<String, String> strings(JsonNode o, String key) {
        Map<String, String> m = new LinkedHashMap<>();
        JsonNode node = o.get(key);
        if (node != null && node.isObject()) {
            for (Map.Entry<String, JsonNode> e : node.properties()) {
                if (!e.getValue().isString()) throw new IllegalArgumentException(key + "." + e.getKey() + " is not a string");
                m.put(e.getKey(), e.getValue().stringValue());
            }
        }
        return m;
    }

    private static String str(JsonNode o, String key) {
        JsonNode n = o.get(key);
        if (n == null || n.isNull()) return null;
        if (n.isString()) return n.stringValue();
        throw new IllegalArgumentException(key + " is not a string");
    }

    private static double num(JsonNode o, String key) {
        JsonNode n = o.get(key);
        return n == null ? Double.NaN : number(n, key);
    }

    private static double number(JsonNode n, String what) {
        if (n.isNumber()) return n.doubleValue();
        if (n.isNull()) return Double.NaN;
        throw new IllegalArgumentException(what + " is not a number");
    }

    /** A host figure as written: a whole number as a long (when it fits), null as NaN. */
    private static Number exact(JsonNode n, String what) {
        if (n.isIntegralNumber() && n.canConvertToLong()) return n.longValue();
        return number(n, what);
    }
}
