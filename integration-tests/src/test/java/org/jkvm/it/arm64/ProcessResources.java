package org.jkvm.it.arm64;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What this process holds, from /proc/self: open descriptors (with their targets), memory
 * mappings (the lines of maps) and threads (by name), to compare before and after many VMs.
 *
 * @param fds     "fd -> target" per open descriptor
 * @param maps    the lines of /proc/self/maps
 * @param threads each thread's name (comm), sorted
 */
record ProcessResources(List<String> fds, List<String> maps, List<String> threads) {
    /** This process now, after a GC (so nothing waits on a cleaner). */
    static ProcessResources take() throws IOException {
        System.gc();
        return new ProcessResources(openFds(), Files.readAllLines(Path.of("/proc/self/maps")), threadNames());
    }

    private static List<String> openFds() throws IOException {
        List<String> fds = new ArrayList<>();
        try (var s = Files.list(Path.of("/proc/self/fd"))) {
            for (Path p : s.sorted().toList()) {
                try {
                    fds.add(p.getFileName() + " -> " + Files.readSymbolicLink(p));
                } catch (IOException gone) {
                    // the listing's own descriptor, closed by now
                }
            }
        }
        return fds;
    }

    private static List<String> threadNames() throws IOException {
        List<String> names = new ArrayList<>();
        try (var s = Files.list(Path.of("/proc/self/task"))) {
            for (Path t : s.toList()) {
                try {
                    names.add(Files.readString(t.resolve("comm")).strip());
                } catch (IOException gone) {
                    // a thread that ended while listed
                }
            }
        }
        names.sort(null);
        return names;
    }

    /** Lines of the maps naming KVM: kvm_run of each vCPU (anon_inode:kvm-vcpu) and the like. */
    long kvmMaps() {
        return maps.stream().filter(l -> l.contains("kvm")).count();
    }

    String summary() {
        return "fds=" + fds.size() + " maps=" + maps.size() + " kvm_maps=" + kvmMaps() + " threads=" + threads.size();
    }

    /** What {@code later} holds that this does not, and the reverse. */
    List<String> differences(ProcessResources later) {
        List<String> d = new ArrayList<>();
        diff("fd", fds, later.fds, d);
        diff("thread", threads, later.threads, d);
        List<String> kvmBefore = maps.stream().filter(l -> l.contains("kvm")).toList();
        diff("kvm mapping", kvmBefore, later.maps.stream().filter(l -> l.contains("kvm")).toList(), d);
        return d;
    }

    private static void diff(String what, List<String> before, List<String> after, List<String> out) {
        List<String> gone = new ArrayList<>(before);
        List<String> added = new ArrayList<>(after);
        for (String s : after) gone.remove(s);
        for (String s : before) added.remove(s);
        for (String s : added) out.add("+" + what + " " + s);
        for (String s : gone) out.add("-" + what + " " + s);
    }
}
