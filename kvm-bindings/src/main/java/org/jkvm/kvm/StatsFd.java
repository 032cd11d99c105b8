package org.jkvm.kvm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * A KVM binary-statistics file (KVM_GET_STATS_FD of a VM or a vCPU). The header and the
 * descriptors are read once, when it is opened; {@link #read} then preads the data block, which
 * KVM fills in on every read. Closing is idempotent.
 */
public final class StatsFd implements AutoCloseable {
    private static final long HEADER_SIZE = HostUapi.struct(UapiStruct.kvm_stats_header).byteSize();
    private static final long H_NAME_SIZE = HostUapi.offset(UapiStruct.kvm_stats_header, "name_size");
    private static final long H_NUM_DESC = HostUapi.offset(UapiStruct.kvm_stats_header, "num_desc");
    private static final long H_ID_OFFSET = HostUapi.offset(UapiStruct.kvm_stats_header, "id_offset");
    private static final long H_DESC_OFFSET = HostUapi.offset(UapiStruct.kvm_stats_header, "desc_offset");
    private static final long H_DATA_OFFSET = HostUapi.offset(UapiStruct.kvm_stats_header, "data_offset");
    private static final long DESC_SIZE = HostUapi.struct(UapiStruct.kvm_stats_desc).byteSize();
    private static final long D_FLAGS = HostUapi.offset(UapiStruct.kvm_stats_desc, "flags");
    private static final long D_EXPONENT = HostUapi.offset(UapiStruct.kvm_stats_desc, "exponent");
    private static final long D_SIZE = HostUapi.offset(UapiStruct.kvm_stats_desc, "size");
    private static final long D_OFFSET = HostUapi.offset(UapiStruct.kvm_stats_desc, "offset");
    private static final long D_BUCKET_SIZE = HostUapi.offset(UapiStruct.kvm_stats_desc, "bucket_size");
    private static final long D_NAME = HostUapi.offset(UapiStruct.kvm_stats_desc, "name");

    private final int fd;
    private final String description;
    private final String id;
    private final List<StatDescriptor> descriptors;
    private final long dataOffset;
    /**
     * Scratch freed by the GC once this is unreachable: closing a shared arena is a handshake
     * with every thread, and a VM of 512 vCPUs closing one per vCPU took seconds to exit.
     */
    private final Arena arena = Arena.ofAuto();
    private final MemorySegment data;
    private volatile boolean closed;

    private StatsFd(int fd, String description, String id, List<StatDescriptor> descriptors, long dataOffset,
                    int words) {
        this.fd = fd;
        this.description = description;
        this.id = id;
        this.descriptors = List.copyOf(descriptors);
        this.dataOffset = dataOffset;
        this.data = arena.allocate(JAVA_LONG, Math.max(words, 1));
    }

    /** Takes ownership of {@code fd}, a stats file of {@code owner}, and reads its header and descriptors. */
    static StatsFd open(int fd, String owner) {
        String description = "stats of " + owner;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment h = a.allocate(HEADER_SIZE, 8);
            preadFully(fd, h, 0, description, "header");
            int nameSize = h.get(JAVA_INT, H_NAME_SIZE);
            int count = h.get(JAVA_INT, H_NUM_DESC);
            MemorySegment idBytes = a.allocate(nameSize);
            preadFully(fd, idBytes, Integer.toUnsignedLong(h.get(JAVA_INT, H_ID_OFFSET)), description, "id");
            long stride = DESC_SIZE + nameSize;
            MemorySegment descs = a.allocate(stride * count, 8);
            preadFully(fd, descs, Integer.toUnsignedLong(h.get(JAVA_INT, H_DESC_OFFSET)), description,
                    count + " descriptors");
            List<StatDescriptor> list = new ArrayList<>(count);
            int words = 0;
            for (int i = 0; i < count; i++) {
                MemorySegment d = descs.asSlice(i * stride, stride);
                int flags = d.get(JAVA_INT, D_FLAGS);
                int size = Short.toUnsignedInt(d.get(JAVA_SHORT, D_SIZE));
                int index = d.get(JAVA_INT, D_OFFSET) / Long.BYTES;
                list.add(new StatDescriptor(text(d.asSlice(D_NAME, nameSize)), StatDescriptor.Type.of(flags),
                        StatDescriptor.Unit.of(flags), StatDescriptor.base(flags), d.get(JAVA_SHORT, D_EXPONENT),
                        size, index, d.get(JAVA_INT, D_BUCKET_SIZE)));
                words = Math.max(words, index + size);
            }
            return new StatsFd(fd, description, text(idBytes), list,
                    Integer.toUnsignedLong(h.get(JAVA_INT, H_DATA_OFFSET)), words);
        } catch (RuntimeException e) {
            Libc.close(fd);
            throw e;
        }
    }

    /** KVM's id string of the file, e.g. {@code kvm-1234} or {@code kvm-1234/vcpu-0}. */
    public String id() {
        return id;
    }

    /** The statistics, in the file's order. */
    public List<StatDescriptor> descriptors() {
        return descriptors;
    }

    /**
     * The current values: the whole data block as 64-bit words; a descriptor's values start at
     * its {@link StatDescriptor#index}.
     */
    public synchronized long[] read() {
        if (closed) throw new IllegalStateException(description + " is closed");
        preadFully(fd, data, dataOffset, description, "data");
        return data.toArray(JAVA_LONG);
    }

    private static void preadFully(int fd, MemorySegment into, long offset, String description, String what) {
        long done = 0;
        while (done < into.byteSize()) {
            long n = Libc.pread(fd, into.asSlice(done), into.byteSize() - done, offset + done);
            if (n < 0) {
                int errno = Libc.errno();
                if (errno == Libc.EINTR) continue;
                throw new KvmException("pread", description + ", " + what + " at " + (offset + done), errno);
            }
            if (n == 0) {
                throw new IllegalStateException(description + ": " + what + " ends early at offset " + (offset + done));
            }
            done += n;
        }
    }

    private static String text(MemorySegment nulTerminated) {
        byte[] b = nulTerminated.toArray(JAVA_BYTE);
        int end = 0;
        while (end < b.length && b[end] != 0) end++;
        return new String(b, 0, end, StandardCharsets.US_ASCII);
    }

    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        Libc.close(fd);
    }

    @Override
    public String toString() {
        return description + " (fd " + fd + ")";
    }
}
