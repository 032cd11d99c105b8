package org.jkvm.pvlock;

import java.util.BitSet;
import java.util.List;

/**
 * Who kept a VM's vCPU threads off their host CPUs while they were runnable ({@link PreemptorWatch}).
 *
 * @param cpus        the host CPUs whose switches were read
 * @param preemptions switches of a vCPU thread out while still runnable
 * @param waitedNanos the vCPUs' time waiting preempted that was charged to a task (summed over vCPUs)
 * @param rows        who ran meanwhile, largest charge first
 * @param lostRecords switch records the kernel dropped (rings full): the tally is short by those
 * @param ringsFull   how many times a CPU's ring was found full: the tally may be short by records
 *                    dropped then that no later notice counted (at the end of the run)
 */
public record Preemptors(BitSet cpus, long preemptions, long waitedNanos, List<Row> rows, long lostRecords, long ringsFull) {

    public Preemptors {
        cpus = (BitSet) cpus.clone();
        rows = List.copyOf(rows);
    }

    @Override
    public BitSet cpus() {
        return (BitSet) cpus.clone();
    }

    /** What kind of task ran while a vCPU waited. */
    public enum Kind {
        /** A vCPU thread: this VM's, or another VM's of the same jkvm. */
        VCPU,
        /** Another thread of this process: the JVM's, a device's, the PV-lock tracker. */
        VMM,
        /** A thread of another process (user or kernel). */
        OTHER,
        /** The CPU's idle task. */
        IDLE
    }

    /**
     * A task, or the tasks of one name and kind.
     *
     * @param kind its kind
     * @param name the thread's name ({@code comm}), "exited" when it was gone before it could be
     *             named; the VM's vCPU threads are one task group, "vCPUs of this VM"
     */
    public record Who(Kind kind, String name) {
        /** The idle task. */
        public static final Who IDLE = new Who(Kind.IDLE, "idle");
        /**
         * What a switch names as task 0 where jkvm runs in a nested PID namespace (a container):
         * the idle task, or any task outside the namespace, which perf cannot name from inside.
         */
        public static final Who IDLE_OR_OUTSIDE = new Who(Kind.IDLE, "idle, or a task outside this PID namespace");
        /** The VM's vCPU threads, taken together (what overcommit puts in a vCPU's way). */
        public static final Who VCPUS = new Who(Kind.VCPU, "vCPUs of this VM");
        /** The vCPU threads of the process's other VMs (an experiment's run of several). */
        public static final Who OTHER_VMS_VCPUS = new Who(Kind.VCPU, "vCPUs of other VMs");
    }

    /**
     * @param who     the task(s)
     * @param tasks   how many threads had that name and kind
     * @param nanos   the vCPUs' waiting time charged to them
     * @param took    preemptions of a vCPU where one of them came in next
     */
    public record Row(Who who, int tasks, long nanos, long took) {}
}
