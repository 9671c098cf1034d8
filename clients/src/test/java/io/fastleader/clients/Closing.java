package io.fastleader.clients;

/** Closes what a test opened, as its teardown does by hand. */
public final class Closing {

    private Closing() {
    }

    /**
     * Closes each of {@code resources} in the order given, passing over those still null (a test that
     * failed before opening them); the first that fails to close ends it, its exception thrown.
     */
    public static void inOrder(AutoCloseable... resources) throws Exception {
        for (AutoCloseable resource : resources) {
            if (resource != null) {
                resource.close();
            }
        }
    }
}
