package org.jkvm.vmm.arch.aarch64;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

import org.jkvm.vmm.arch.aarch64.image.ArmImage;
import org.jkvm.vmm.io.FileProblem;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The kernel and initrd copied into guest RAM beside the set-up: what lands there, and what a failure looks like. */
@Tag("unit")
class PayloadLoadTest {
    @TempDir
    Path dir;

    /** An arm64 Image of {@code length} bytes: the header's magic, little-endian, 4 KiB pages, placeable anywhere. */
    private static byte[] image(int length) {
        byte[] b = new byte[length];
        new Random(1).nextBytes(b);
        ByteBuffer h = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        h.putLong(8, 0);
        h.putLong(16, length);
        h.putLong(24, 0xa);
        h.putInt(56, ArmImage.MAGIC);
        return b;
    }

    private Path write(String name, byte[] content) throws IOException {
        return Files.write(dir.resolve(name), content);
    }

    @Test
    void theKernelAndTheInitrdLandInGuestRam() throws IOException {
        byte[] kernel = image(1 << 20);
        byte[] initrd = new byte[300_000];
        new Random(2).nextBytes(initrd);
        ArmImage img = ArmImage.read(write("Image", kernel));
        Path initrdFile = write("initrd", initrd);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment k = arena.allocate(kernel.length);
            MemorySegment i = arena.allocate(initrd.length);
            PayloadLoad.start(img, k, initrdFile, i).await();
            assertArrayEquals(kernel, k.toArray(JAVA_BYTE));
            assertArrayEquals(initrd, i.toArray(JAVA_BYTE));
        }
    }

    /** A copy whose initrd has 4096 bytes where 8192 were checked: it shrank since. */
    private PayloadLoad shrunkInitrd(Arena arena) throws IOException {
        ArmImage img = ArmImage.read(write("Image", image(64 << 10)));
        return PayloadLoad.start(img, arena.allocate(64 << 10), write("initrd", new byte[4096]), arena.allocate(8192));
    }

    @Test
    void anInitrdThatShrankSinceItsCheckFailsTheSetUpWithTheFileNamed() throws IOException {
        try (Arena arena = Arena.ofShared()) {
            FileProblem e = assertThrows(FileProblem.class, shrunkInitrd(arena)::await);
            assertEquals(dir.resolve("initrd") + ": changed while it was read (4096 bytes, not the 8192 checked)", e.getMessage());
        }
    }

    @Test
    void aSetUpThatFailedMeanwhileKeepsItsOwnFailureWithTheCopysAdded() throws IOException {
        try (Arena arena = Arena.ofShared()) {
            IllegalStateException setUp = new IllegalStateException("the GIC could not be made");
            shrunkInitrd(arena).awaitAfter(setUp);
            assertEquals(1, setUp.getSuppressed().length);
            assertInstanceOf(FileProblem.class, setUp.getSuppressed()[0]);
        }
    }
}
