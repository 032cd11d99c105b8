import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassFileVersion;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeTransform;
import java.lang.constant.ClassDesc;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Build step of the cli module, run on the shaded jar: rewrites the class files under a package
 * that are older than Java 6 (picocli's, compiled for Java 5) as Java 8 class files with stack
 * maps, the code itself unchanged. The JDK's ahead-of-time cache leaves out such old classes and
 * every class that implements one of their interfaces once they are linked ("Old class has been
 * linked"), which kept picocli and jkvm's commands out of it.
 *
 * <p>Usage: {@code java UpgradeClassFiles.java JAR PACKAGE_DIR} (e.g. {@code picocli}).
 */
public final class UpgradeClassFiles {
    private UpgradeClassFiles() {}

    public static void main(String[] args) throws IOException {
        if (args.length != 2) throw new IllegalArgumentException("usage: UpgradeClassFiles JAR PACKAGE_DIR");
        Path jar = Path.of(args[0]);
        try (FileSystem fs = FileSystems.newFileSystem(jar)) {
            // Stack maps need the common superclass of two types; the jar's own classes are found in the jar.
            ClassHierarchyResolver inJar = ClassHierarchyResolver.ofResourceParsing(c -> open(fs, c));
            ClassFile cf = ClassFile.of(ClassFile.StackMapsOption.GENERATE_STACK_MAPS,
                    ClassFile.ClassHierarchyResolverOption.of(ClassHierarchyResolver.defaultResolver().orElse(inJar)));
            ClassTransform toJava8 = ClassTransform.dropping(e -> e instanceof ClassFileVersion)
                    .andThen(ClassTransform.transformingMethodBodies(CodeTransform.ACCEPT_ALL))
                    .andThen(ClassTransform.endHandler(b -> b.withVersion(ClassFile.JAVA_8_VERSION, 0)));
            List<Path> classes;
            try (Stream<Path> s = Files.walk(fs.getPath("/", args[1]))) {
                classes = s.filter(p -> p.toString().endsWith(".class")).toList();
            }
            int upgraded = 0;
            for (Path p : classes) {
                ClassModel m = cf.parse(Files.readAllBytes(p));
                if (m.majorVersion() >= ClassFile.JAVA_6_VERSION) continue;
                Files.write(p, cf.transformClass(m, toJava8));
                upgraded++;
            }
            System.out.println("UpgradeClassFiles: " + upgraded + " of " + classes.size() + " class files under "
                    + args[1] + " in " + jar.getFileName() + " rewritten as Java 8 class files");
        }
    }

    private static InputStream open(FileSystem fs, ClassDesc c) {
        String d = c.descriptorString();
        Path p = fs.getPath("/", d.substring(1, d.length() - 1) + ".class");
        try {
            return Files.exists(p) ? Files.newInputStream(p) : null;
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + p + " from the jar", e);
        }
    }
}
