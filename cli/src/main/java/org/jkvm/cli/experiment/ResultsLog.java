package org.jkvm.cli.experiment;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
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

import org.jkvm.cli.experiment.JsonTree.Arr;
import org.jkvm.cli.experiment.JsonTree.Bool;
import org.jkvm.cli.experiment.JsonTree.Member;
import org.jkvm.cli.experiment.JsonTree.Node;
import org.jkvm.cli.experiment.JsonTree.Null;
import org.jkvm.cli.experiment.JsonTree.Num;
import org.jkvm.cli.experiment.JsonTree.Obj;
import org.jkvm.cli.experiment.JsonTree.Str;

/**
 * The results of an experiment as JSON lines, one {@link RunResult} per line, append-only.
 *
 * <p>A crash can leave the last line half written (no newline at its end): reading ignores it, and
 * {@link #open} cuts it off so that the next append starts on a fresh line. Any other line that is
 * not a result is an error naming its line. An id may appear more than once (a failed run retried):
 * the last line wins. Each append is flushed to the disk before it returns.
 */
public final class ResultsLog implements AutoCloseable {
    private final Path file;
    private final FileChannel channel;
    private final List<RunResult> results;

    private ResultsLog(Path file, FileChannel channel, List<RunResult> results) {
        this.file = file;
        this.channel = channel;
        this.results = results;
    }

    /** Opens (creating if missing) a log to resume: reads what is there and drops a partial last line. */
    public static ResultsLog open(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) Files.createDirectories(parent);
        FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            byte[] bytes = new byte[Math.toIntExact(ch.size())];
            ByteBuffer buf = ByteBuffer.wrap(bytes);
            while (buf.hasRemaining() && ch.read(buf, buf.position()) >= 0) { /* fill */ }
            int complete = completeLength(bytes);
            List<RunResult> results = parse(file, new String(bytes, 0, complete, StandardCharsets.UTF_8));
            if (complete < bytes.length) ch.truncate(complete);
            ch.position(complete);
            return new ResultsLog(file, ch, new ArrayList<>(results));
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /** Reads a log without changing it; a partial last line is ignored. A missing file has no results. */
    public static List<RunResult> read(Path file) throws IOException {
        if (!Files.exists(file)) return List.of();
        byte[] bytes = Files.readAllBytes(file);
        return parse(file, new String(bytes, 0, completeLength(bytes), StandardCharsets.UTF_8));
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
        channel.close();
    }

    /** The last result of each id, in order of first appearance. */
    public static Map<String, RunResult> latest(List<RunResult> results) {
        Map<String, RunResult> m = new LinkedHashMap<>();
        for (RunResult r : results) m.put(r.id(), r);
        return Collections.unmodifiableMap(m);
    }

    private static int completeLength(byte[] bytes) {
        int n = bytes.length;
        while (n > 0 && bytes[n - 1] != '\n') n--;
        return n;
    }

    private static List<RunResult> parse(Path file, String text) throws IOException {
        List<RunResult> out = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty()) continue;
            try {
                out.add(fromJson(line));
            } catch (JsonTree.SyntaxError e) {
                throw new IOException(file + ":" + (i + 1) + ":" + e.pos.col() + ": not a result line: " + e.getMessage());
            } catch (RuntimeException e) {
                throw new IOException(file + ":" + (i + 1) + ": not a result line: " + e.getMessage());
            }
        }
        return out;
    }

    /** One result as one line of JSON (no newline). */
    static String toJson(RunResult r) {
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
        return JsonTree.write(m);
    }

    /** Parses a line {@link #toJson} wrote. */
    static RunResult fromJson(String line) throws JsonTree.SyntaxError {
        if (!(JsonTree.parse(line) instanceof Obj o)) throw new IllegalArgumentException("not an object");
        Map<String, Member> f = o.members();
        List<Double> vms = new ArrayList<>();
        if (f.get("vm_values") != null && f.get("vm_values").value() instanceof Arr a) {
            for (Node n : a.items()) vms.add(number(n));
        }
        Map<String, Number> host = new LinkedHashMap<>();
        if (f.get("host") != null && f.get("host").value() instanceof Obj h) {
            for (Member m : h.members().values()) {
                if (m.value() instanceof Num num) host.put(m.key(), exact(num));
                else if (m.value() instanceof Null) host.put(m.key(), Double.NaN);
                else throw new IllegalArgumentException("host." + m.key() + " is not a number");
            }
        }
        Map<String, String> kernels = new LinkedHashMap<>();
        if (f.get("kernels") != null && f.get("kernels").value() instanceof Obj k) {
            for (Member m : k.members().values()) {
                if (m.value() instanceof Str s) kernels.put(m.key(), s.value());
                else throw new IllegalArgumentException("kernels." + m.key() + " is not a string");
            }
        }
        String better = str(f, "better");
        String started = str(f, "started");
        Instant at;
        try {
            at = started == null ? null : Instant.parse(started);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("started: " + e.getMessage());
        }
        String id = str(f, "id");
        if (id == null) throw new IllegalArgumentException("no id");
        return new RunResult(id, str(f, "variant"), str(f, "workload"), (int) num(f, "repetition"),
                f.get("warmup") != null && f.get("warmup").value() instanceof Bool b && b.value(),
                num(f, "value"), str(f, "unit"), better == null ? null : Direction.parse(better),
                num(f, "wall_s"), at, vms, host, str(f, "error"), kernels);
    }

    private static String str(Map<String, Member> f, String key) {
        Member m = f.get(key);
        if (m == null || m.value() instanceof Null) return null;
        if (m.value() instanceof Str s) return s.value();
        throw new IllegalArgumentException(key + " is not a string");
    }

    private static double num(Map<String, Member> f, String key) {
        Member m = f.get(key);
        return m == null ? Double.NaN : number(m.value());
    }

    private static double number(Node n) {
        return switch (n) {
            case Num num -> num.doubleValue();
            case Null x -> Double.NaN;
            default -> throw new IllegalArgumentException("expected a number, found " + n.kind());
        };
    }

    private static Number exact(Num n) {
        if (n.isIntegral()) {
            try {
                return Long.parseLong(n.text());
            } catch (NumberFormatException e) {
                // too large for a long: fall through
            }
        }
        return n.doubleValue();
    }
}
