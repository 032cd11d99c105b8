# The java options ./demo runs jkvm with inside the emulated arm64 host, sourced by ./demo and, in
# the host, by the benchmarks' jkvm-demo (bench/blk, bench/net), so all run the same JVM (POSIX sh:
# busybox reads it too).
# Under the host's emulation the JIT's work decides the start-up: C1 alone and the serial
# collector reach the guest's first line in about half the time of the JVM's defaults
# (bench/boot/README.md, 2026-12-01), and C1 compiling a method after 16 times the usual calls
# leaves the two CPUs to jkvm's start instead of code that runs a few times (2026-12-02; 32
# and more delay the guest: its exits run interpreted longer; a guest's first heavy network
# transfer pays, bench/net/README.md). Native arm64 runs (./jkvm) keep the JVM's defaults and
# C2 for the exit path.
# A small initial heap and no perf-data file: 9 MB less resident at 1 vCPU, 16-18 MB at 128-512
# (the guest's RAM is not heap; bench/footprint/README.md, 2026-12-01).
JKVM_DEMO_JAVA_OPTS="-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:CompileThresholdScaling=16 -Xms8m -XX:-UsePerfData"
