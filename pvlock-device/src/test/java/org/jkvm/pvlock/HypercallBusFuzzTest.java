package org.jkvm.pvlock;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.jkvm.kvm.MappedMemory;
import org.jkvm.vmm.arch.aarch64.Arm64Layout;
import org.jkvm.vmm.bus.HypercallBus;
import org.jkvm.vmm.memory.MemoryRegion;
import org.junit.jupiter.api.Tag;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A guest's hypercalls with any function id and argument registers, on a hypercall bus holding
 * the PV-lock calls as {@link PvLockDevice} registers them: none throws; the features call adds
 * the PV-lock bit to the kernel's bitmap, the PV-lock call gives the caller's structure, every
 * other id is answered NOT_SUPPORTED and counted, no argument register is read, and the
 * counters add up.
 * Input, little-endian: the kernel's bitmap u64, then steps of an op u8, a vCPU u8 (modulo the
 * VM's 8), an argument count u8 (0..4), a function id u64 where op bits 0-1 are 2 or 3 (0 is the
 * features call, 1 the PV-lock call), and the arguments u64 each.
 */
@Tag("unit")
@Tag("fuzz")
class HypercallBusFuzzTest {
    private static final int VCPUS = 8;

    @FuzzTest(maxDuration = "30s")
    void calls(byte[] data) {
        long size = Arm64Layout.pvRegionSize(VCPUS);
        ByteBuffer in = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
        try (MappedMemory mem = MappedMemory.anonymous(size, false)) {
            var region = new PvLockRegion(new MemoryRegion("pvlock", MemoryRegion.Kind.RESERVED, Arm64Layout.PVLOCK,
                    size, 1, mem), VCPUS);
            var stats = new PvLockStats(VCPUS);
            long bitmap = in.remaining() >= 8 ? in.getLong() : 0;
            var calls = new PvLockCalls(bitmap, region, stats, null);
            var bus = new HypercallBus();
            bus.register("pvlock features", PvLockCalls.FEATURES, 1, calls);
            bus.register("pvlock", PvLockCalls.PV_LOCK, 1, calls);
            long features = 0, pvLock = 0, unknown = 0;
            while (in.remaining() >= 3) {
                int op = in.get();
                int vcpu = Math.floorMod(in.get(), VCPUS);
                int arguments = Math.floorMod(in.get(), 5);
                long function = switch (op & 3) {
                    case 0 -> PvLockCalls.FEATURES;
                    case 1 -> PvLockCalls.PV_LOCK;
                    default -> in.remaining() >= 8 ? in.getLong() : op;
                };
                // the arguments' registers: no handler reads them (UnreadArguments fails a read)
                for (int i = 0; i < arguments && in.remaining() >= 8; i++) in.getLong();
                long[] answer = UnreadArguments.answer(bus, vcpu, function);
                String call = "vcpu " + vcpu + " function 0x" + Long.toHexString(function);
                if (function == PvLockCalls.FEATURES) {
                    features++;
                    assertArrayEquals(new long[] {bitmap | PvLockCalls.PV_LOCK_BIT}, answer, call);
                } else if (function == PvLockCalls.PV_LOCK) {
                    pvLock++;
                    assertArrayEquals(new long[] {Arm64Layout.PVLOCK + PvLockRegion.structSize() * vcpu}, answer, call);
                } else {
                    unknown++;
                    assertArrayEquals(new long[] {-1}, answer, call);
                }
            }
            assertEquals(features, stats.totals().featureCalls());
            assertEquals(pvLock, stats.totals().pvLockCalls());
            assertEquals(unknown, bus.unknownCalls());
        }
    }
}
