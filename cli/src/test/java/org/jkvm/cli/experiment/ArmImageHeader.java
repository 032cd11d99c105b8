package org.jkvm.cli.experiment;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** The header of a small little-endian arm64 Image: what a spec check with its files reads of a kernel, as a boot would. */
final class ArmImageHeader {
    private ArmImageHeader() {}

    static byte[] bytes() {
        byte[] image = new byte[4096];
        ByteBuffer.wrap(image).order(ByteOrder.LITTLE_ENDIAN).putLong(16, 1 << 20).putLong(24, 0xa).putInt(56, 0x644d5241);
        return image;
    }
}
