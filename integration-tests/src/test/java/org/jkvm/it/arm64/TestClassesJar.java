package org.jkvm.it.arm64;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A jar of some of these tests' own classes, to run them as a program inside the emulated host. */
final class TestClassesJar {
    private TestClassesJar() {}

    /** Writes {@code jar} with {@code classes} and their nested classes; returns it. */
    static Path of(Path jar, Class<?>... classes) throws IOException, InterruptedException {
        Path root = Path.of(classes[0].getProtectionDomain().getCodeSource().getLocation().getPath());
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "jar").toString(),
                "--create", "--file", jar.toString()));
        for (Class<?> c : classes) {
            Path dir = root.resolve(c.getPackageName().replace('.', '/'));
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    String name = f.getFileName().toString();
                    if (name.equals(c.getSimpleName() + ".class") || name.startsWith(c.getSimpleName() + "$")) {
                        cmd.addAll(List.of("-C", root.toString(), root.relativize(f).toString()));
                    }
                }
            }
        }
        assertEquals(0, new ProcessBuilder(cmd).inheritIO().start().waitFor(), "jar " + cmd);
        return jar;
    }
}
