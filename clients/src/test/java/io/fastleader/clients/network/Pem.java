package io.fastleader.clients.network;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** The test TLS material in {@code resources/.../network/pem} (see its README), as text. */
final class Pem {

    static final String CA = read("ca.pem");
    static final String OTHER_CA = read("other-ca.pem");
    static final String SERVER_CERTIFICATE = read("server.pem");
    static final String SERVER_KEY = read("server.key");
    static final String CLIENT_CERTIFICATE = read("client.pem");
    static final String CLIENT_KEY = read("client.key");
    static final String CLIENT_KEY_ENCRYPTED = read("client-encrypted.key");
    static final String CLIENT_KEY_PASSWORD = "key-secret";

    private Pem() {
    }

    private static String read(String name) {
        try (InputStream in = Pem.class.getResourceAsStream("pem/" + name)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource pem/" + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
