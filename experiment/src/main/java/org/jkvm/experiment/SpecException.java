package org.jkvm.experiment;

import java.util.List;
import java.util.stream.Collectors;

/**
 * An experiment spec that cannot be used; carries every problem found (not just the first), one
 * per line in the message. An {@link IllegalArgumentException}, so jkvm's error handler exits 2.
 */
public final class SpecException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;
    private final transient List<SpecError> errors;

    public SpecException(List<SpecError> errors) {
        super(errors.stream().map(SpecError::toString).collect(Collectors.joining("\n")));
        this.errors = List.copyOf(errors);
    }

    /** The problems, in the order they appear in the file. */
    public List<SpecError> errors() {
        return errors;
    }
}
