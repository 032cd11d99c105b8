package org.jkvm.vmm.arch.aarch64.image;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.jkvm.vmm.io.InputFile;
import org.jkvm.vmm.io.InputKind;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A kernel Image and an initrd each larger than the Java heap load, in a JVM of its own with a
 * 32 MiB heap: neither is read whole into the heap on its way to guest RAM (bench/footprint).
 */
@Tag("unit")
class LargerThanTheHeapTest {
    private static final long SIZE = 96L << 20;
    private static final String BANNER = "Linux version 6.12.0-large (x)";

    @Test
    void anImageAndAnInitrdLargerThanTheHeapLoad(@TempDir Path dir) throws Exception {
        Path image = dir.resolve("Image");
        Path initrd = dir.resolve("initrd");
        try (var f = new RandomAccessFile(image.toFile(), "rw")) {
            f.write(ArmImageTest.modern(4096, 128L << 20));
            f.seek(SIZE - 64);   // the banner at the end: the release search reads all of it
            f.write(BANNER.getBytes(StandardCharsets.US_ASCII));
            f.setLength(SIZE);
        }
        try (var f = new RandomAccessFile(initrd.toFile(), "rw")) {
            f.setLength(SIZE);
            f.seek(SIZE - 1);
            f.write(7);
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-Xmx32m", "-XX:MaxDirectMemorySize=1g",
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                Load.class.getName(), image.toString(), initrd.toString())
                .redirectErrorStream(true).start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the loading JVM did not end");
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), out);
        assertEquals("6.12.0-large " + SIZE + " 7", out.strip());
    }

    /** Loads IMAGE and INITRD as jkvm does, into native memory, and prints the release, the image's size and the initrd's last byte. */
    static final class Load {
        public static void main(String[] args) throws IOException {
            ArmImage img = ArmImage.read(Path.of(args[0]));
            Path initrd = Path.of(args[1]);
            long initrdSize = InputFile.checkedSize(initrd, new InputKind("an initrd", SIZE));
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment ram = arena.allocate(img.kernel().size() + initrdSize);
                img.kernel().copyTo(ram);
                InputFile.readInto(initrd, ram.asSlice(img.kernel().size(), initrdSize));
                System.out.println(img.release().orElse("-") + " " + img.kernel().size() + " "
                        + ram.get(ValueLayout.JAVA_BYTE, ram.byteSize() - 1));
            }
        }
    }
}
