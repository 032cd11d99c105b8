package org.jkvm.vmm.profile;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A guest's code symbols, from a kernel's System.map, a {@code /proc/kallsyms} dump or
 * {@code nm} output (all {@code ADDRESS TYPE NAME} lines): the text symbols (types t, T, w, W),
 * sorted, so a PC resolves to the symbol at or below it.
 */
public final class SymbolTable {
    private final long[] addresses;
    private final String[] names;

    private SymbolTable(long[] addresses, String[] names) {
        this.addresses = addresses;
        this.names = names;
    }

    /** Reads {@code file}; a line that is not {@code ADDRESS TYPE NAME} is an error naming the line. */
    public static SymbolTable read(Path file) throws IOException {
        return parse(Files.readAllLines(file, StandardCharsets.UTF_8), file.toString());
    }

    /** Parses symbol lines; {@code source} names them in errors. */
    public static SymbolTable parse(List<String> lines, String source) {
        record Symbol(long address, String name) {}
        List<Symbol> text = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty()) continue;
            String[] f = line.split("\\s+");
            if (f.length < 3 || f[1].length() != 1) {
                throw new IllegalArgumentException(source + ":" + (i + 1) + ": not 'ADDRESS TYPE NAME': " + line);
            }
            long address;
            try {
                address = Long.parseUnsignedLong(f[0], 16);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(source + ":" + (i + 1) + ": not a hex address: " + f[0], e);
            }
            if ("tTwW".indexOf(f[1].charAt(0)) >= 0) text.add(new Symbol(address, f[2]));
        }
        text.sort(Comparator.comparing(Symbol::address, Long::compareUnsigned));
        return new SymbolTable(text.stream().mapToLong(Symbol::address).toArray(),
                text.stream().map(Symbol::name).toArray(String[]::new));
    }

    /** How many text symbols it holds. */
    public int size() {
        return names.length;
    }

    /** The text symbol at or below {@code address}, if any. */
    public Optional<String> at(long address) {
        int lo = 0;
        int hi = addresses.length - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(addresses[mid], address) <= 0) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found < 0 ? Optional.empty() : Optional.of(names[found]);
    }

    /** The address of the first text symbol named {@code name}. */
    public OptionalLong address(String name) {
        int i = Arrays.asList(names).indexOf(name);
        return i < 0 ? OptionalLong.empty() : OptionalLong.of(addresses[i]);
    }
}
