package org.jkvm.kvm;

/**
 * The generated C struct layouts that code shared by both architectures reads, named as in C;
 * {@link Uapi} maps each to the host architecture's generated layout.
 */
enum UapiStruct {
    jkvm_tun_ifreq, kvm_create_device, kvm_device_attr, kvm_enable_cap, kvm_ioeventfd, kvm_irq_level,
    kvm_irqfd, kvm_one_reg, kvm_run, kvm_signal_mask, kvm_stats_desc, kvm_stats_header,
    kvm_userspace_memory_region, perf_event_attr, perf_event_header, perf_event_mmap_page, sigevent, termios, iovec;
}
