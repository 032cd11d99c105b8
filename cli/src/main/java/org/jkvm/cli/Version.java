package org.jkvm.cli;

import picocli.CommandLine.IVersionProvider;

/** Reports the jar's version. */
final class Version implements IVersionProvider {
    @Override
    public String[] getVersion() {
        String v = Main.class.getPackage().getImplementationVersion();
        return new String[] {"jkvm " + (v == null ? "(development build)" : v),
            "Java " + Runtime.version() + " on " + System.getProperty("os.arch")};
    }
}
