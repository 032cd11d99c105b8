package org.jkvm.it.arm64;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The JDK AOT cache of the freshly built jkvm jar for the emulated arm64 host's JVM
 * ({@code arm64-host/aot-cache}): made once per jar build, by one training run in one boot of
 * the host, and kept outside the clone; every later boot gets it ({@code arm64-host/run
 * --aot-cache}), so each {@code java -jar jkvm.jar} there maps jkvm's classes already loaded
 * and linked instead of doing that again under emulation.
 */
final class AotCache {
    private static Optional<Path> made;

    private AotCache() {}

    /** The cache for {@code jar}, made first when missing; none when that failed (said on stderr). */
    static synchronized Optional<Path> forJar(Path jar) throws IOException, InterruptedException {
        if (made == null) made = make(jar);
        return made;
    }

    private static Optional<Path> make(Path jar) throws IOException, InterruptedException {
        Path script = EmulatedArm64Host.repo().resolve("arm64-host/aot-cache");
        Process p = new ProcessBuilder(script.toString(), jar.toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        int status = p.waitFor();
        if (status != 0 || out.isEmpty()) {
            System.err.println("arm64 tier: " + script + " exited " + status + "; jkvm starts without an AOT cache");
            return Optional.empty();
        }
        return Optional.of(Path.of(out));
    }
}
