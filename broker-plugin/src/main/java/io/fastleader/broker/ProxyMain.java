package io.fastleader.broker;

import java.nio.file.Files;
import java.nio.file.Path;

import io.kroxylicious.proxy.KafkaProxy;
import io.kroxylicious.proxy.config.ConfigParser;
import io.kroxylicious.proxy.config.Configuration;
import io.kroxylicious.proxy.internal.config.Features;

/**
 * Runs a Kroxylicious proxy from a YAML configuration file until the process is stopped. With
 * this module's runtime classpath it is the proxy the README describes, the leader-hint filter
 * included; Kroxylicious 0.12.0's own launcher is not published to Maven Central.
 */
public final class ProxyMain {

    private ProxyMain() {
    }

    /**
     * Starts the proxy.
     *
     * @param args one argument: the path of the Kroxylicious configuration file
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: java -cp <classpath> " + ProxyMain.class.getName() + " <kroxylicious-config.yaml>");
            System.exit(2);
        }
        ConfigParser parser = new ConfigParser();
        Configuration configuration = parser.parseConfiguration(Files.readString(Path.of(args[0])));
        try (KafkaProxy proxy = new KafkaProxy(parser, configuration, Features.defaultFeatures())) {
            proxy.startup();
            proxy.block();
        }
    }
}
