package org.jkvm.vmm.config;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.jkvm.vmm.io.InputFile;
import org.jkvm.vmm.io.InputKind;

/**
 * A raw disk image the guest gets as a virtio-blk device, as {@code --disk PATH[,ro][,serial=S]}.
 * Checked at once: a regular file, readable (and writable unless read-only), a whole number of
 * 512-byte sectors, not empty.
 *
 * @param path     the image
 * @param readOnly whether the guest may only read it
 * @param serial   what the guest reads as the disk's id (at most {@link #SERIAL_BYTES} ASCII bytes), or empty
 */
public record Disk(Path path, boolean readOnly, String serial) {
    /** The bytes of virtio-blk's id string. */
    public static final int SERIAL_BYTES = 20;
    /** The sector size a raw image is counted in. */
    public static final int SECTOR = 512;
    private static final InputKind KIND = new InputKind("a disk image", Long.MAX_VALUE);

    /** Validates the image and the serial; problems are {@link SettingException}s naming the path. */
    public Disk {
        if (path == null) throw new SettingException("disk", null, "give the image's path");
        if (serial == null) serial = "";
        String problem = InputFile.problem(path, KIND);
        if (problem != null) throw new SettingException("disk", path, problem);
        if (!Files.isReadable(path)) throw new SettingException("disk", path, "cannot be read (permission denied)");
        if (!readOnly && !Files.isWritable(path)) {
            throw new SettingException("disk", path, "cannot be written; add ,ro to give it read-only");
        }
        long size = path.toFile().length();
        if (size == 0 || size % SECTOR != 0) {
            throw new SettingException("disk", path, "is " + size + " bytes, not a whole number of 512-byte sectors");
        }
        if (serial.length() > SERIAL_BYTES || !StandardCharsets.US_ASCII.newEncoder().canEncode(serial)) {
            throw new SettingException("disk", path, "the serial '" + serial + "' is not at most "
                    + SERIAL_BYTES + " ASCII characters");
        }
    }

    /** Reads {@code PATH[,ro][,serial=S]}. */
    public static Disk parse(String text) {
        String[] parts = text.split(",", -1);
        boolean ro = false;
        String serial = "";
        for (int i = 1; i < parts.length; i++) {
            String p = parts[i].strip();
            if (p.equals("ro")) {
                ro = true;
            } else if (p.startsWith("serial=")) {
                serial = p.substring("serial=".length());
            } else {
                throw new SettingException("disk", text, "unknown setting '" + p + "'; give PATH[,ro][,serial=S]");
            }
        }
        if (parts[0].isBlank()) throw new SettingException("disk", text, "give the image's path: PATH[,ro][,serial=S]");
        return new Disk(Path.of(parts[0].strip()), ro, serial);
    }
}
