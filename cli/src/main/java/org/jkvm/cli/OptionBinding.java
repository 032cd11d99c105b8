package org.jkvm.cli;

import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

import picocli.CommandLine.Model.IGetter;
import picocli.CommandLine.Model.ISetter;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Where a programmatically built picocli option keeps its value: a getter and a setter over a
 * field of the command, given as lambdas. Commands on jkvm's start-up path build their models
 * this way instead of from annotations, because reading annotations makes the JVM generate a
 * proxy class per annotation type, which no AOT cache keeps: seconds in the emulated arm64 host.
 */
record OptionBinding<V>(Supplier<V> getter, Consumer<V> setter) implements IGetter, ISetter {
    /** An option taking a {@code label} value of {@code type}, kept by {@code get} and {@code set}; its value now is its initial one. */
    static <V> OptionSpec.Builder option(String name, String label, Class<V> type, Supplier<V> get, Consumer<V> set) {
        return bound(OptionSpec.builder(name).paramLabel(label).type(type), new OptionBinding<>(get, set));
    }

    /** An option whose value, when it is given, goes to {@code action}, which keeps none. */
    static <V> OptionSpec.Builder action(String name, String label, Class<V> type, Consumer<V> action) {
        OptionBinding<V> binding = new OptionBinding<>(() -> null, action);
        return OptionSpec.builder(name).paramLabel(label).type(type).getter(binding).setter(binding).hasInitialValue(false);
    }

    /** A boolean option without a value. */
    static OptionSpec.Builder flag(String name, Supplier<Boolean> get, Consumer<Boolean> set) {
        return bound(OptionSpec.builder(name).type(boolean.class), new OptionBinding<>(get, set));
    }

    /** A repeatable option whose values of {@code element} type are collected in a list. */
    static <E> OptionSpec.Builder list(String name, String label, Class<E> element, Supplier<List<E>> get,
            Consumer<List<E>> set) {
        return bound(OptionSpec.builder(name).paramLabel(label).type(List.class).auxiliaryTypes(element),
                new OptionBinding<>(get, set));
    }

    private static OptionSpec.Builder bound(OptionSpec.Builder option, OptionBinding<?> binding) {
        return option.getter(binding).setter(binding).initialValue(binding.getter().get()).hasInitialValue(true);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T get() {
        return (T) getter.get();
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T set(T value) {
        T previous = get();
        setter.accept((V) value);
        return previous;
    }
}
