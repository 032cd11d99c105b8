package org.jkvm.vmm.memory;

import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import org.jkvm.kvm.MappedMemory;
import org.jkvm.kvm.VmFd;

/**
 * A VM's guest physical memory: RAM and reserved regions (e.g. the PV structures), each host
 * memory of its own in a KVM memslot of its own. Translates guest physical addresses to host
 * memory, refusing any range that is not wholly inside one region.
 */
public final class GuestMemory implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(GuestMemory.class.getName());

    private final VmFd vm;
    private final List<MemoryRegion> regions = new ArrayList<>();

    /** Memory for {@code vm}; regions are added with {@link #add}. */
    public GuestMemory(VmFd vm) {
        this.vm = vm;
    }

    /**
     * Maps {@code size} bytes at guest physical {@code gpa} as a new memslot.
     * {@code noReserve}: commit host pages only when the guest touches them.
     */
    public MemoryRegion add(String name, MemoryRegion.Kind kind, long gpa, long size, boolean noReserve) {
        if (gpa < 0 || size <= 0 || gpa + size < gpa) {
            throw new IllegalArgumentException(name + ": bad range gpa=0x" + Long.toHexString(gpa) + " size=0x" + Long.toHexString(size));
        }
        for (MemoryRegion r : regions) {
            if (gpa < r.end() && r.gpa() < gpa + size) {
                throw new IllegalArgumentException(name + " at 0x" + Long.toHexString(gpa) + " overlaps " + r);
            }
        }
        MappedMemory host = MappedMemory.anonymous(size, noReserve);
        int slot = regions.size();
        try {
            // Huge pages for RAM, as QEMU asks: fewer faults and TLB misses, and KVM's stage-2 blocks.
            if (kind == MemoryRegion.Kind.RAM && !host.adviseHugePages()) {
                LOG.log(Level.DEBUG, "this host has no transparent huge pages: {0} uses base pages", name);
            }
            vm.setUserMemoryRegion(slot, 0, gpa, host.segment());
        } catch (RuntimeException e) {
            host.close();
            throw e;
        }
        MemoryRegion r = new MemoryRegion(name, kind, gpa, size, slot, host);
        regions.add(r);
        return r;
    }

    /** All regions, in the order added. */
    public List<MemoryRegion> regions() {
        return List.copyOf(regions);
    }

    /** The region holding {@code gpa}, or null. */
    public MemoryRegion regionOf(long gpa) {
        for (MemoryRegion r : regions) if (r.contains(gpa)) return r;
        return null;
    }

    /** Host memory for {@code [gpa, gpa + length)}, which must lie inside one region. */
    public MemorySegment slice(long gpa, long length) {
        MemoryRegion r = regionOf(gpa);
        if (r == null || length < 0 || length > r.end() - gpa) {
            throw new GuestAddressException(gpa, length, r);
        }
        return r.host().segment().asSlice(gpa - r.gpa(), length);
    }

    /** Copies {@code data} to guest physical {@code gpa}. */
    public void write(long gpa, byte[] data) {
        MemorySegment.copy(MemorySegment.ofArray(data), 0, slice(gpa, data.length), 0, data.length);
    }

    @Override
    public void close() {
        for (MemoryRegion r : regions) r.host().close();
        regions.clear();
    }
}
