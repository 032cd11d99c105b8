package org.jkvm.cli;

/** A problem the user can fix (input, host set-up); its message says how. Exit code 2. */
final class UserError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UserError(String message) {
        super(message);
    }
}
