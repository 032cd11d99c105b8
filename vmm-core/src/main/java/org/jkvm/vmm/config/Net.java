package org.jkvm.vmm.config;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.zip.CRC32;

/**
 * The guest's network card, as {@code --net tap=NAME[,mac=52:54:00:xx:xx:xx]}: a virtio-net
 * device on the host's tap interface NAME (attached when it exists, created by jkvm otherwise).
 * Without a MAC the card gets one derived from the tap's name, the same on every run, in QEMU's
 * locally administered 52:54:00 range.
 *
 * @param tap the tap interface's name, 1 to {@link #MAX_NAME} characters of [A-Za-z0-9_.-]
 * @param mac the card's unicast MAC address, six lower-case hex pairs separated by colons
 */
public record Net(String tap, String mac) {
    /** IFNAMSIZ less its NUL. */
    public static final int MAX_NAME = 15;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1," + MAX_NAME + "}");
    private static final Pattern MAC = Pattern.compile("\\p{XDigit}{2}(:\\p{XDigit}{2}){5}");
    private static final String USAGE = "give tap=NAME[,mac=52:54:00:xx:xx:xx]";

    /** Validates the name and the address; null {@code mac}: derived from the name. */
    public Net {
        if (tap == null || !NAME.matcher(tap).matches() || tap.equals(".") || tap.equals("..")) {
            throw new SettingException("net", tap, "a tap's name is 1 to " + MAX_NAME + " characters of A-Z, a-z, 0-9, _ . -");
        }
        if (mac == null) mac = derivedMac(tap);
        if (!MAC.matcher(mac).matches()) throw new SettingException("net", mac, "a MAC address is six hex pairs: 52:54:00:12:34:56");
        mac = mac.toLowerCase(Locale.ROOT);
        if ((HexFormat.fromHexDigits(mac, 0, 2) & 1) != 0) {
            throw new SettingException("net", mac, "is a multicast address; a card needs a unicast one (first byte even)");
        }
    }

    /** Reads {@code tap=NAME[,mac=M]}. */
    public static Net parse(String text) {
        String tap = null, mac = null;
        for (String part : text.split(",", -1)) {
            String p = part.strip();
            if (p.startsWith("tap=")) {
                tap = p.substring("tap=".length());
            } else if (p.startsWith("mac=")) {
                mac = p.substring("mac=".length());
            } else {
                throw new SettingException("net", text, "unknown setting '" + p + "'; " + USAGE);
            }
        }
        if (tap == null) throw new SettingException("net", text, "names no tap; " + USAGE);
        return new Net(tap, mac);
    }

    /** The address as the six bytes of virtio-net's configuration space. */
    public byte[] macBytes() {
        return HexFormat.ofDelimiter(":").parseHex(mac);
    }

    private static String derivedMac(String tap) {
        CRC32 crc = new CRC32();
        crc.update(tap.getBytes(StandardCharsets.US_ASCII));
        long v = crc.getValue();
        return "52:54:00:%02x:%02x:%02x".formatted(v >>> 16 & 0xff, v >>> 8 & 0xff, v & 0xff);
    }
}
