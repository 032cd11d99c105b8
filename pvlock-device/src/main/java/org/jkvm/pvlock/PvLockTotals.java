package org.jkvm.pvlock;

/**
 * {@link PvLockStats} summed over a VM's vCPUs.
 *
 * @param featureCalls        vendor-hyp feature calls jkvm answered
 * @param pvLockCalls         PV-lock calls jkvm answered
 * @param preemptedSet        changes of a {@code preempted} flag from 0 to 1 that jkvm wrote
 * @param preemptedCleared    changes from 1 to 0 that jkvm wrote
 * @param changesSeen         kernel mode: changes the sampler saw the host kernel make
 * @param preemptions         userspace mode: preemptions of vCPU threads
 * @param voluntarySwitchOuts userspace mode: voluntary switch-outs of vCPU threads
 * @param preemptedShare      the vCPUs' mean share of time (or samples) with {@code preempted} set,
 *                            a vCPU with nothing measured counting as 0
 */
public record PvLockTotals(long featureCalls, long pvLockCalls, long preemptedSet, long preemptedCleared,
                           long changesSeen, long preemptions, long voluntarySwitchOuts, double preemptedShare) {
}
