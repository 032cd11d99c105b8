package org.jkvm.cli;

import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

import picocli.CommandLine.Model.IGetter;
import picocli.CommandLine.Model.ISetter;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * Where a programmatically built picocli option or parameter keeps its value: a getter and a
 * setter over a field of the command, given as lambdas. jkvm's commands build their models this
 * way instead of from annotations, because reading annotations makes the JVM generate a
 * proxy class per annotation type, which no AOT cache keeps: seconds in the emulated arm64 host.
 */
public record OptionBinding<V>(Supplier<V> getter, Consumer<V> setter) implements IGetter, ISetter {
    /** An option taking a {@code label} value of {@code type}, kept by {@code get} and {@code set}; its value now is its initial one. */
    public static <V> OptionSpec.Builder option(String name, String label, Class<V> type, Supplier<V> get, Consumer<V> set) {
        return bound(OptionSpec.builder(name).paramLabel(label).type(type), new OptionBinding<>(get, set));
    }

    /** An option whose value, when it is given, goes to {@code action}, which keeps none. */
    public static <V> OptionSpec.Builder action(String name, String label, Class<V> type, Consumer<V> action) {
        OptionBinding<V> binding = new OptionBinding<>(() -> null, action);
        return OptionSpec.builder(name).paramLabel(label).type(type).getter(binding).setter(binding).hasInitialValue(false);
    }

    /** A boolean option without a value. */
    public static OptionSpec.Builder flag(String name, Supplier<Boolean> get, Consumer<Boolean> set) {
        return bound(OptionSpec.builder(name).type(boolean.class), new OptionBinding<>(get, set));
    }

    /** A repeatable option whose values of {@code element} type are collected in a list. */
    public static <E> OptionSpec.Builder list(String name, String label, Class<E> element, Supplier<List<E>> get,
            Consumer<List<E>> set) {
        return bound(OptionSpec.builder(name).paramLabel(label).type(List.class).auxiliaryTypes(element),
                new OptionBinding<>(get, set));
    }

    /** The required positional parameter at {@code index}, a {@code label} value of {@code type}. */
    public static <V> PositionalParamSpec.Builder parameter(int index, String label, Class<V> type, Supplier<V> get,
            Consumer<V> set) {
        OptionBinding<V> binding = new OptionBinding<>(get, set);
        return PositionalParamSpec.builder().index(Integer.toString(index)).arity("1").required(true).paramLabel(label).type(type)
                .getter(binding).setter(binding);
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
