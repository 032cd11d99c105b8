package org.jkvm.vmm.arch.aarch64.image;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;

import org.jkvm.vmm.io.FileProblem;
import org.jkvm.vmm.io.InputFile;

/**
 * Where the bytes of a checked kernel Image are: in memory (a decompressed Image.gz, a test's
 * image), or still in the file, read from it straight into guest RAM so that a 44 MB Image never
 * sits in the Java heap (bench/footprint/README.md).
 */
public sealed interface ImageContent {
    /** Bytes of the Image. */
    long size();

    /** Copies the Image to the start of {@code dst}, which has room for {@link #size()} bytes. */
    void copyTo(MemorySegment dst) throws IOException;

    /** The Image's bytes from the start, for one pass over them; the caller closes it. */
    ReadableByteChannel open() throws IOException;

    /** An image held in memory; owned by this record, not copied. */
    record InMemory(byte[] bytes) implements ImageContent {
        public InMemory {
            Objects.requireNonNull(bytes, "bytes");
        }

        @Override
        public long size() {
            return bytes.length;
        }

        @Override
        public void copyTo(MemorySegment dst) {
            MemorySegment.copy(MemorySegment.ofArray(bytes), 0, dst, 0, bytes.length);
        }

        @Override
        public ReadableByteChannel open() {
            return Channels.newChannel(new ByteArrayInputStream(bytes));
        }
    }

    /**
     * An image left in its file, checked when it had {@code size} bytes and began with
     * {@code header}; copying it refuses a file that has changed since.
     */
    record InFile(Path file, long size, byte[] header) implements ImageContent {
        public InFile {
            Objects.requireNonNull(file, "file");
            Objects.requireNonNull(header, "header");
        }

        @Override
        public void copyTo(MemorySegment dst) throws IOException {
            MemorySegment to = dst.asSlice(0, size);
            InputFile.readInto(file, to);
            int n = header.length;
            if (MemorySegment.mismatch(to, 0, n, MemorySegment.ofArray(header), 0, n) >= 0) {
                throw new FileProblem(file.toString(), "changed while it was read (its header is not the one checked)");
            }
        }

        @Override
        public ReadableByteChannel open() throws IOException {
            return FileChannel.open(file, StandardOpenOption.READ);
        }
    }
}
