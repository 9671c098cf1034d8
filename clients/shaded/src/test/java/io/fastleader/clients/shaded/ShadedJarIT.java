package io.fastleader.clients.shaded;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What the fastleader-clients jar holds and what it takes from the application's kafka-clients:
 * its own classes and relocated internals only, and of kafka-clients nothing but the public API
 * (and the internals it takes on purpose). A reference to another kafka-clients internal means the
 * shade plugin's list in the pom lacks a class: the internals on the application's classpath would
 * matter again.
 */
class ShadedJarIT {

    /** Packages of kafka-clients' public API (its published Javadoc), whose classes stay the application's. */
    private static final List<String> PUBLIC_PACKAGES = List.of(
        "org/apache/kafka/clients/admin/",
        "org/apache/kafka/clients/consumer/",
        "org/apache/kafka/clients/producer/",
        "org/apache/kafka/common/",
        "org/apache/kafka/common/config/",
        "org/apache/kafka/common/config/types/",
        "org/apache/kafka/common/errors/",
        "org/apache/kafka/common/header/",
        "org/apache/kafka/common/metrics/",
        "org/apache/kafka/common/metrics/stats/",
        "org/apache/kafka/common/security/auth/",
        "org/apache/kafka/common/security/oauthbearer/",
        "org/apache/kafka/common/security/scram/",
        "org/apache/kafka/common/serialization/");

    /** Public in all but package, and part of the API above: configuration constants and a record's timestamp type. */
    private static final List<String> PUBLIC_CLASSES = List.of(
        "org/apache/kafka/clients/CommonClientConfigs",
        "org/apache/kafka/common/record/TimestampType",
        "org/apache/kafka/common/utils/Time");

    /**
     * Internals taken from the application on purpose, each through members every release 3.7 to
     * 4.4 has (the link check proves it): SASL logs in with the application's JAAS parsing, login
     * manager, default logins and default callback handlers, as its channel builder picks them
     * (DESIGN.md: kafka-clients is used for its SASL mechanisms), TLS engines come from its
     * default {@code SslEngineFactory} unless the application names its own, and
     * {@code bootstrap.servers} is parsed as the application's release parses it, with its DNS
     * lookup and its {@code ConfigException} messages; client telemetry is collected and encoded
     * by the application's own {@code ClientTelemetryReporter}, whose requests and answers
     * fastleader carries.
     */
    private static final List<String> DELIBERATE_INTERNALS = List.of(
        "org/apache/kafka/clients/ClientUtils",
        "org/apache/kafka/common/message/GetTelemetrySubscriptionsRequestData",
        "org/apache/kafka/common/message/GetTelemetrySubscriptionsResponseData",
        "org/apache/kafka/common/message/PushTelemetryRequestData",
        "org/apache/kafka/common/message/PushTelemetryResponseData",
        "org/apache/kafka/common/requests/AbstractRequest",
        "org/apache/kafka/common/requests/GetTelemetrySubscriptionsRequest",
        "org/apache/kafka/common/requests/GetTelemetrySubscriptionsResponse",
        "org/apache/kafka/common/requests/PushTelemetryRequest",
        "org/apache/kafka/common/requests/PushTelemetryResponse",
        "org/apache/kafka/common/telemetry/internals/ClientTelemetryReporter",
        "org/apache/kafka/common/telemetry/internals/ClientTelemetrySender",
        "org/apache/kafka/common/telemetry/internals/ClientTelemetryUtils",
        "org/apache/kafka/common/security/JaasContext",
        "org/apache/kafka/common/security/authenticator/DefaultLogin",
        "org/apache/kafka/common/security/authenticator/LoginManager",
        "org/apache/kafka/common/security/authenticator/SaslClientCallbackHandler",
        "org/apache/kafka/common/security/kerberos/KerberosClientCallbackHandler",
        "org/apache/kafka/common/security/kerberos/KerberosLogin",
        "org/apache/kafka/common/security/oauthbearer/internals/OAuthBearerRefreshingLogin",
        "org/apache/kafka/common/security/oauthbearer/internals/OAuthBearerSaslClientCallbackHandler",
        "org/apache/kafka/common/security/ssl/DefaultSslEngineFactory");

    private static LinkCheck jar;
    private static List<String> resources;

    @BeforeAll
    static void readJar() throws IOException {
        Path path = Path.of(System.getProperty("fastleader.shaded.jar"));
        jar = LinkCheck.of(path, ShadedJarIT.class.getClassLoader());
        try (JarFile file = new JarFile(path.toFile())) {
            resources = file.stream().filter(entry -> !entry.isDirectory()).map(JarEntry::getName)
                .filter(name -> !name.endsWith(".class")).toList();
        }
    }

    @Test
    void testHoldsOnlyClassesUnderFastleadersOwnPackages() {
        assertThat(jar.classes()).allMatch(name -> name.startsWith("io/fastleader/"));
    }

    @Test
    void testCarriesNoResourceOfTheLibrariesItRelocates() {
        // A relocated library's service files and markers name classes by their old names: whoever
        // scans the application's classpath for them (ServiceLoader, Netty's Version) would be misled.
        assertThat(resources).isNotEmpty().allMatch(name -> name.startsWith("io/fastleader/")
            || name.equals("META-INF/MANIFEST.MF") || name.startsWith("META-INF/maven/io.fastleader/"));
    }

    @Test
    void testTakesNothingFromKafkaClientsButItsPublicApi() {
        assertThat(jar.externalClasses())
            .filteredOn(name -> name.startsWith("org/apache/kafka/"))
            .filteredOn(name -> !isPublic(name))
            .isEmpty();
    }

    @Test
    void testCarriesNoCopyOfKafkasErrorTable() {
        // Errors builds an exception of every code when it loads, and 3.7 lacks 14 of their classes.
        assertThat(jar.classes()).noneMatch(name -> name.endsWith("/common/protocol/Errors"));
    }

    private static boolean isPublic(String name) {
        String outer = name.contains("$") ? name.substring(0, name.indexOf('$')) : name;
        String packageName = outer.substring(0, outer.lastIndexOf('/') + 1);
        return PUBLIC_PACKAGES.contains(packageName) || PUBLIC_CLASSES.contains(outer) || DELIBERATE_INTERNALS.contains(outer);
    }
}
