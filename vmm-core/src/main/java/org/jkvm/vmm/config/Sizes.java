package org.jkvm.vmm.config;

import java.util.Locale;

/** Memory sizes as users write them: 512M, 2G, 1048576, 64K. */
public final class Sizes {
    private Sizes() {}

    /** Parses a size; a bare number is bytes, K/M/G/T suffixes are binary (KiB...). */
    public static long parse(String text) {
        String t = text.strip().toUpperCase(Locale.ROOT);
        if (t.endsWith("IB")) t = t.substring(0, t.length() - 2);
        else if (t.endsWith("B")) t = t.substring(0, t.length() - 1);
        int shift = 0;
        if (!t.isEmpty()) {
            switch (t.charAt(t.length() - 1)) {
                case 'K' -> shift = 10;
                case 'M' -> shift = 20;
                case 'G' -> shift = 30;
                case 'T' -> shift = 40;
                default -> { }
            }
        }
        String digits = shift == 0 ? t : t.substring(0, t.length() - 1);
        try {
            if (digits.isEmpty() || !digits.chars().allMatch(Character::isDigit)) throw new NumberFormatException();
            long n = Long.parseLong(digits);
            if (n < 0 || n > (Long.MAX_VALUE >> shift)) throw new NumberFormatException();
            return n << shift;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is not a size: write e.g. 512M or 2G");
        }
    }

    /** A size as the largest exact unit: 512M, 2G, 1536K, 100 (bytes). */
    public static String format(long bytes) {
        String[] units = {"", "K", "M", "G", "T"};
        int u = 0;
        while (u < units.length - 1 && bytes != 0 && bytes % 1024 == 0) {
            bytes /= 1024;
            u++;
        }
        return bytes + units[u];
    }
}
