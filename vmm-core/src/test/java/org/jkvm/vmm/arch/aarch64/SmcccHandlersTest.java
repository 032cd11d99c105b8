package org.jkvm.vmm.arch.aarch64;

import java.util.ArrayList;
import java.util.List;

import org.jkvm.vmm.bus.ArrayHypercall;
import org.jkvm.vmm.bus.HypercallBus;
import org.jkvm.vmm.bus.HypercallHandler;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** One declared function-id range: owned on the hypercall bus and forwarded by KVM's filter. */
@Tag("unit")
class SmcccHandlersTest {
    private static final long FEATURES = 0x8600_0000L;
    private static final HypercallHandler ANSWER_42 = (vcpu, function, call) -> call.result(0, 42);

    HypercallBus bus;
    List<String> forwarded;
    SmcccHandlers handlers;

    @BeforeEach
    void handlers() {
        bus = new HypercallBus();
        forwarded = new ArrayList<>();
        handlers = new SmcccHandlers(bus, (first, count) -> forwarded.add("0x" + Long.toHexString(first) + "+" + count));
    }

    @Test
    void oneDeclarationGivesTheBusRangeAndTheFilterCall() {
        handlers.add("features", FEATURES, 2, ANSWER_42);
        assertEquals(List.of("0x86000000+2"), forwarded);
        assertArrayEquals(new long[] {42}, ArrayHypercall.answer(bus, 0, FEATURES + 1));
        assertArrayEquals(new long[][] {{FEATURES, 2}}, bus.ranges());
    }

    @Test
    void anOverlappingRangeIsRefusedBeforeKvmIsTold() {
        handlers.add("features", FEATURES, 2, ANSWER_42);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> handlers.add("other", FEATURES + 1, 1, ANSWER_42));
        assertEquals("SMCCC function id range other [0x86000001..0x86000002) overlaps features [0x86000000..0x86000002)",
                e.getMessage());
        assertEquals(List.of("0x86000000+2"), forwarded);
    }
}
