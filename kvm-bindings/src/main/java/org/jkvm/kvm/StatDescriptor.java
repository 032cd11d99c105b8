package org.jkvm.kvm;

/**
 * One statistic of a KVM binary-stats file ({@code struct kvm_stats_desc}): its name, what kind
 * of value it is, its unit and scale, and where its values sit in the data block.
 *
 * @param name       KVM's name, e.g. {@code halt_exits}
 * @param type       how the value evolves
 * @param unit       what it counts
 * @param base       10 or 2: the value is {@code raw * base^exponent} units
 * @param exponent   see {@code base}
 * @param size       how many 64-bit values: 1 for counters, the bucket count for histograms
 * @param index      the first value's index in the data block, in 64-bit words
 * @param bucketSize a linear histogram's bucket width (0 otherwise)
 */
public record StatDescriptor(String name, Type type, Unit unit, int base, int exponent, int size, int index,
                             int bucketSize) {

    /** How a statistic's value evolves (KVM_STATS_TYPE_*); OTHER for a type this jkvm does not know. */
    public enum Type {
        CUMULATIVE(UapiConstant.KVM_STATS_TYPE_CUMULATIVE), INSTANT(UapiConstant.KVM_STATS_TYPE_INSTANT),
        PEAK(UapiConstant.KVM_STATS_TYPE_PEAK), LINEAR_HIST(UapiConstant.KVM_STATS_TYPE_LINEAR_HIST),
        LOG_HIST(UapiConstant.KVM_STATS_TYPE_LOG_HIST), OTHER(null);

        private final UapiConstant constant;

        Type(UapiConstant constant) {
            this.constant = constant;
        }

        static Type of(int flags) {
            long t = flags & HostUapi.constant(UapiConstant.KVM_STATS_TYPE_MASK);
            for (Type k : values()) {
                if (k != OTHER && HostUapi.constant(k.constant) == t) return k;
            }
            return OTHER;
        }

        /** Whether a later value minus an earlier one is what happened in between. */
        public boolean accumulates() {
            return this == CUMULATIVE || this == LINEAR_HIST || this == LOG_HIST;
        }
    }

    /** The unit of a statistic (KVM_STATS_UNIT_*); OTHER for a unit this jkvm does not know. */
    public enum Unit {
        NONE(UapiConstant.KVM_STATS_UNIT_NONE), BYTES(UapiConstant.KVM_STATS_UNIT_BYTES),
        SECONDS(UapiConstant.KVM_STATS_UNIT_SECONDS), CYCLES(UapiConstant.KVM_STATS_UNIT_CYCLES),
        BOOLEAN(UapiConstant.KVM_STATS_UNIT_BOOLEAN), OTHER(null);

        private final UapiConstant constant;

        Unit(UapiConstant constant) {
            this.constant = constant;
        }

        static Unit of(int flags) {
            long u = flags & HostUapi.constant(UapiConstant.KVM_STATS_UNIT_MASK);
            for (Unit k : values()) {
                if (k != OTHER && HostUapi.constant(k.constant) == u) return k;
            }
            return OTHER;
        }
    }

    static int base(int flags) {
        long b = flags & HostUapi.constant(UapiConstant.KVM_STATS_BASE_MASK);
        return b == HostUapi.constant(UapiConstant.KVM_STATS_BASE_POW2) ? 2 : 10;
    }
}
