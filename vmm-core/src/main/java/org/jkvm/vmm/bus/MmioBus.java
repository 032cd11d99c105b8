package org.jkvm.vmm.bus;

import java.lang.System.Logger.Level;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Guest physical address ranges owned by devices. An access no device owns is the guest's
 * mistake, not the VMM's: reads return 0, writes are dropped, and it is counted and logged
 * (the first few only, so a guest cannot flood the log).
 */
public final class MmioBus {
    private static final System.Logger LOG = System.getLogger(MmioBus.class.getName());
    private static final int LOGGED_STRAYS = 8;

    private record Range(long base, long size, String name, MmioDevice device) {}

    private final TreeMap<Long, Range> ranges = new TreeMap<>();
    private final AtomicLong strays = new AtomicLong();

    /** Gives {@code [base, base + size)} to {@code device}; overlapping ranges are refused. */
    public synchronized void register(String name, long base, long size, MmioDevice device) {
        if (size <= 0 || base + size < base) {
            throw new IllegalArgumentException(name + ": bad MMIO range base=0x" + Long.toHexString(base) + " size=" + size);
        }
        Map.Entry<Long, Range> below = ranges.floorEntry(base + size - 1);
        if (below != null && below.getValue().base() + below.getValue().size() > base) {
            throw new IllegalArgumentException(name + " at 0x" + Long.toHexString(base) + " overlaps "
                    + below.getValue().name());
        }
        ranges.put(base, new Range(base, size, name, device));
    }

    private Range find(long address) {
        Map.Entry<Long, Range> e = ranges.floorEntry(address);
        if (e == null) return null;
        Range r = e.getValue();
        return address - r.base() < r.size() ? r : null;
    }

    /** Dispatches a guest read; returns the value for the guest. */
    public long read(int vcpu, long address, int size) {
        Range r = find(address);
        if (r == null) {
            stray(vcpu, "read", address, size);
            return 0;
        }
        return r.device().read(vcpu, address - r.base(), size);
    }

    /** Dispatches a guest write. */
    public void write(int vcpu, long address, int size, long value) {
        Range r = find(address);
        if (r == null) {
            stray(vcpu, "write", address, size);
            return;
        }
        r.device().write(vcpu, address - r.base(), size, value);
    }

    private void stray(int vcpu, String what, long address, int size) {
        long n = strays.incrementAndGet();
        if (n <= LOGGED_STRAYS) {
            LOG.log(Level.WARNING, "vcpu {0}: {1} of {2} bytes at unmapped guest address 0x{3}{4}", vcpu, what, size,
                    Long.toHexString(address), n == LOGGED_STRAYS ? " (further ones are only counted)" : "");
        }
    }

    /** How many accesses hit no device. */
    public long strayAccesses() {
        return strays.get();
    }
}
