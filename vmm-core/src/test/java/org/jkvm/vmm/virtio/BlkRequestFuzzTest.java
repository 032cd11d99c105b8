package org.jkvm.vmm.virtio;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.jkvm.vmm.FuzzInput;
import org.jkvm.kvm.HolePuncher;
import org.jkvm.kvm.VectoredFile;
import org.junit.jupiter.api.Tag;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A guest sending any virtio-blk request over any chain: every chain the queue accepts either
 * has no status byte (a {@link VirtioException}) or is answered with OK, IOERR or UNSUPP in its
 * status byte, the device claiming no more bytes written than the chain offers; the image never
 * changes size. Input: {@link FuzzedQueue}'s layout; the image is 8 sectors, writable.
 */
@Tag("unit")
@Tag("fuzz")
class BlkRequestFuzzTest {
    static final int SECTORS = 8;
    static final Path IMAGE = image();
    private static final VirtioBlk BLK = open();

    private static Path image() {
        try {
            Path p = Files.createTempFile("jkvm-blk-fuzz", ".img");
            p.toFile().deleteOnExit();
            Files.write(p, new byte[SECTORS * 512]);
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static VirtioBlk open() {
        return new VirtioBlk("virtio-blk-fuzz", VectoredFile.open(IMAGE, true),
                SECTORS, false, "fuzz", HolePuncher.probe(IMAGE, SECTORS * 512L).orElse(null));
    }

    @FuzzTest(maxDuration = "30s")
    void requests(byte[] data) throws IOException {
        try {
            FuzzedQueue f = new FuzzedQueue(new FuzzInput(data));
            for (int served = 0; served < 16; served++) {
                DescriptorChain c = f.queue.next();
                if (c == null) break;
                BlkRequest r = BlkRequest.parse(c);
                int written = BLK.execute(r);
                byte status = r.status().get(JAVA_BYTE, 0);
                assertTrue(status == VirtioBlk.S_OK || status == VirtioBlk.S_IOERR || status == VirtioBlk.S_UNSUPP,
                        "status " + status);
                assertTrue(written >= 1 && written <= c.writableBytes(), written + " of " + c.writableBytes());
            }
        } catch (VirtioException refused) {
            // a malformed queue or a request with nowhere to put its status
        }
        assertEquals(SECTORS * 512L, Files.size(IMAGE));
    }
}
