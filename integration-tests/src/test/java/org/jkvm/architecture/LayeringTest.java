package org.jkvm.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The module boundaries of architecture.md, checked on the compiled main classes of every
 * module: a rule that no longer matches any class fails too (ArchUnit's default), so a moved
 * package cannot make a rule pass vacuously.
 */
@Tag("unit")
class LayeringTest {
    private static final String BINDINGS = "org.jkvm.kvm..";
    private static final String CORE = "org.jkvm.vmm..";
    private static final String PVLOCK = "org.jkvm.pvlock..";
    private static final String EXPERIMENT = "org.jkvm.experiment..";
    private static final String CLI = "org.jkvm.cli..";

    private static JavaClasses jkvm;

    @BeforeAll
    static void importJkvm() {
        jkvm = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("org.jkvm");
    }

    @Test
    void onlyTheBindingsMakeNativeDowncalls() {
        noClasses().that().resideOutsideOfPackage(BINDINGS)
                .should().dependOnClassesThat().haveFullyQualifiedName("java.lang.foreign.Linker")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.lang.foreign.SymbolLookup")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.lang.foreign.FunctionDescriptor")
                .because("only kvm-bindings touches native code")
                .check(jkvm);
    }

    @Test
    void theBindingsKnowNoMachine() {
        noClasses().that().resideInAPackage(BINDINGS)
                .should().dependOnClassesThat().resideInAnyPackage(CORE, PVLOCK, EXPERIMENT, CLI)
                .check(jkvm);
    }

    @Test
    void theCoreKnowsNeitherThePvLockDeviceNorTheFrontEnds() {
        noClasses().that().resideInAPackage(CORE)
                .should().dependOnClassesThat().resideInAnyPackage(PVLOCK, EXPERIMENT, CLI)
                .check(jkvm);
    }

    @Test
    void thePvLockDeviceKnowsNoFrontEnd() {
        noClasses().that().resideInAPackage(PVLOCK)
                .should().dependOnClassesThat().resideInAnyPackage(EXPERIMENT, CLI)
                .check(jkvm);
    }

    @Test
    void theExperimentEngineKnowsNeitherPicocliNorTheCli() {
        noClasses().that().resideInAPackage(EXPERIMENT)
                .should().dependOnClassesThat().resideInAnyPackage("picocli..", CLI)
                .check(jkvm);
    }

    @Test
    void theCliBuildsItsCommandsWithoutPicocliAnnotations() {
        noClasses().that().resideInAPackage(CLI)
                .should().dependOnClassesThat()
                .haveNameMatching("picocli\\.CommandLine\\$(Command|Option|Parameters|Mixin|ArgGroup|Spec|ParentCommand|Unmatched)")
                .because("reading annotations generates a proxy class per annotation type, which no AOT cache keeps:"
                        + " seconds of start-up in the emulated arm64 host (OptionBinding)")
                .check(jkvm);
    }
}
