package org.jkvm.vmm.profile;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The one table that rolls guest samples up into {@link Category categories}, for Linux 6.12
 * arm64 guests (x86 names of the same paths are listed too, so a table from another guest
 * reads sensibly).
 *
 * <p>A sample is classified by its stack, innermost frame first: the first frame the table
 * names decides; a frame listed as a helper (a function the lock and idle paths call while they
 * wait, such as {@code vcpu_is_preempted} or {@code __cmpwait_relaxed}) is looked through to its
 * caller; any other frame ends the walk as {@link Category#OTHER}. So a sample in
 * {@code osq_lock} under {@code rwsem_down_write_slowpath} is owner spinning, one in
 * {@code vcpu_is_preempted} called from {@code rwsem_spin_on_owner} is too, while an interrupt
 * handler running on top of the idle loop is not idle. The walk only sees the callers the frame
 * records name: a leaf function without a frame record hides its direct caller.
 *
 * <table>
 * <caption>Frames that decide</caption>
 * <tr><th>category</th><th>frames</th></tr>
 * <tr><td>owner-spinning</td><td>osq_lock, mutex_spin_on_owner, mutex_optimistic_spin, rwsem_spin_on_owner,
 *   rwsem_optimistic_spin, rtmutex_spin_on_owner</td></tr>
 * <tr><td>spinlock-slowpath</td><td>queued_spin_lock_slowpath, native_queued_spin_lock_slowpath,
 *   __pv_queued_spin_lock_slowpath, queued_read_lock_slowpath, queued_write_lock_slowpath</td></tr>
 * <tr><td>idle</td><td>cpu_do_idle, arch_cpu_idle, default_idle_call, cpuidle_idle_call, do_idle,
 *   cpu_idle_poll, cpuidle_enter_state, psci_cpu_suspend_enter</td></tr>
 * <tr><td>user</td><td>{@value ProfileReport#USER} (EL0)</td></tr>
 * <tr><td>jkvm</td><td>{@value ProfileReport#VMM} (the thread outside KVM_RUN)</td></tr>
 * </table>
 * Helpers looked through: {@link #HELPERS}.
 */
public final class CategoryRules {
    /** The frames that decide a sample's category. */
    static final Map<String, Category> DECIDING = Map.ofEntries(
            Map.entry("osq_lock", Category.OWNER_SPINNING),
            Map.entry("mutex_spin_on_owner", Category.OWNER_SPINNING),
            Map.entry("mutex_optimistic_spin", Category.OWNER_SPINNING),
            Map.entry("rwsem_spin_on_owner", Category.OWNER_SPINNING),
            Map.entry("rwsem_optimistic_spin", Category.OWNER_SPINNING),
            Map.entry("rtmutex_spin_on_owner", Category.OWNER_SPINNING),
            Map.entry("queued_spin_lock_slowpath", Category.SPINLOCK_SLOWPATH),
            Map.entry("native_queued_spin_lock_slowpath", Category.SPINLOCK_SLOWPATH),
            Map.entry("__pv_queued_spin_lock_slowpath", Category.SPINLOCK_SLOWPATH),
            Map.entry("queued_read_lock_slowpath", Category.SPINLOCK_SLOWPATH),
            Map.entry("queued_write_lock_slowpath", Category.SPINLOCK_SLOWPATH),
            Map.entry("cpu_do_idle", Category.IDLE),
            Map.entry("arch_cpu_idle", Category.IDLE),
            Map.entry("default_idle_call", Category.IDLE),
            Map.entry("cpuidle_idle_call", Category.IDLE),
            Map.entry("do_idle", Category.IDLE),
            Map.entry("cpu_idle_poll", Category.IDLE),
            Map.entry("cpuidle_enter_state", Category.IDLE),
            Map.entry("psci_cpu_suspend_enter", Category.IDLE),
            Map.entry(ProfileReport.USER, Category.USER),
            Map.entry(ProfileReport.VMM, Category.JKVM));

    /** Functions the waiting paths call and that say nothing by themselves: the walk goes on to their caller. */
    static final Set<String> HELPERS = Set.of(
            "vcpu_is_preempted", "owner_on_cpu", "__cmpwait_relaxed", "__cmpwait_case_32", "__cmpwait_case_64",
            "cpu_relax", "__kvm_vcpu_is_preempted", "pv_vcpu_is_preempted", "osq_wait_next");

    private CategoryRules() {}

    /** The category of a sample whose frames are {@code outerToLeaf} (the leaf last, as in a folded stack). */
    public static Category classify(List<String> outerToLeaf) {
        for (int i = outerToLeaf.size() - 1; i >= 0; i--) {
            String frame = outerToLeaf.get(i);
            Category c = DECIDING.get(frame);
            if (c != null) return c;
            if (!HELPERS.contains(frame)) return Category.OTHER;
        }
        return Category.OTHER;
    }
}
