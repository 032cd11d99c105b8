package org.jkvm.vmm.config;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The guest's virtio-vsock device, as {@code --vsock PATH[,cid=N]}: host programs reach guest
 * ports through the Unix socket {@code PATH}, guest connections to the host's port P reach
 * {@code PATH_P}. Checked at once: {@code PATH}'s directory exists and {@code PATH} does not.
 *
 * @param socket   the Unix socket jkvm listens on
 * @param guestCid the guest's context id, 3 to 2^32 - 2 (0-2 are reserved, -1 means any)
 */
public record Vsock(Path socket, long guestCid) {
    /** The guest's context id unless one is given. */
    public static final long DEFAULT_CID = 3;
    private static final long MAX_CID = 0xffff_fffeL;

    /** Validates the path and the context id; problems are {@link SettingException}s. */
    public Vsock {
        if (socket == null) throw new SettingException("vsock", null, "give the Unix socket's path");
        if (guestCid < 3 || guestCid > MAX_CID) {
            throw new SettingException("vsock", "cid=" + guestCid, "the guest's context id must be 3 to " + MAX_CID);
        }
        Path dir = socket.toAbsolutePath().getParent();
        if (dir == null || !Files.isDirectory(dir)) throw new SettingException("vsock", socket, "its directory does not exist");
        if (Files.exists(socket)) {
            throw new SettingException("vsock", socket, "exists already; remove it if no VM listens there");
        }
    }

    /** Reads {@code PATH[,cid=N]}. */
    public static Vsock parse(String text) {
        String[] parts = text.split(",", -1);
        long cid = DEFAULT_CID;
        for (int i = 1; i < parts.length; i++) {
            String p = parts[i].strip();
            if (!p.startsWith("cid=")) {
                throw new SettingException("vsock", text, "unknown setting '" + p + "'; give PATH[,cid=N]");
            }
            try {
                cid = Long.parseLong(p.substring("cid=".length()));
            } catch (NumberFormatException e) {
                throw new SettingException("vsock", text, "'" + p + "' is not a whole number");
            }
        }
        if (parts[0].isBlank()) throw new SettingException("vsock", text, "give the Unix socket's path: PATH[,cid=N]");
        return new Vsock(Path.of(parts[0].strip()), cid);
    }
}
