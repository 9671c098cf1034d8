package io.fastleader.it.parity;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.config.SaslConfigs;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.fastleader.it.cluster.ClusterSpec;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaTestCluster;
import io.fastleader.it.cluster.Security;

/**
 * {@code AWS_MSK_IAM}, the default way to authenticate to Amazon MSK, configured as aws-msk-iam-auth
 * documents it ({@code IAMLoginModule}, {@code IAMClientCallbackHandler}), through
 * {@code KafkaProducer}/{@code KafkaConsumer} and fastleader's clients alike: the library's own
 * SaslClient signs its payload with the credentials of an AWS profile, and a real broker given the
 * mechanism's server side by the test ({@link IamBrokerMechanism}) checks it. A known key produces
 * and reads back; an unknown key is refused at once.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class MskIamParityTest {

    private static final String IAM_LOGIN = "software.amazon.msk.auth.iam.IAMLoginModule required awsProfileName=\"%s\";";
    private static final String IAM_CALLBACK_HANDLER = "software.amazon.msk.auth.iam.IAMClientCallbackHandler";
    /** The system properties the AWS SDK reads profiles and the region from, instead of the user's own; set for this class. */
    private static Map<String, String> awsProperties = Map.of();

    @TempDir
    static Path awsDir;
    private static KafkaTestCluster cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        Path credentials = Files.writeString(awsDir.resolve("credentials"), "[known]\naws_access_key_id = " + IamBrokerMechanism.ACCESS_KEYS.iterator().next()
            + "\naws_secret_access_key = fastleader-test-secret\n\n[stranger]\naws_access_key_id = AKIASTRANGERTEST0001\n"
            + "aws_secret_access_key = stranger-test-secret\n");
        Path config = Files.writeString(awsDir.resolve("config"), "");
        awsProperties = Map.of("aws.sharedCredentialsFile", credentials.toString(), "aws.configFile", config.toString(),
            "aws.region", "eu-west-1");
        awsProperties.forEach(System::setProperty);
        Security iam = Security.withBrokerLogin(IamBrokerMechanism.MECHANISM, IamBrokerMechanism.brokerLogin())
            .withClientConfig(SaslConfigs.SASL_JAAS_CONFIG, String.format(IAM_LOGIN, "known"))
            .withClientConfig(SaslConfigs.SASL_CLIENT_CALLBACK_HANDLER_CLASS, IAM_CALLBACK_HANDLER);
        cluster = ClusterSpec.builder().brokers(1).execution(Execution.IN_JVM).security(iam).start();
    }

    @AfterAll
    static void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
        awsProperties.keySet().forEach(System::clearProperty);
    }

    @Test
    void anIamLoginProducesAndConsumesAsKafkaClientsDoes() throws Exception {
        AuthenticationParityTest.assertEachReadsWhatBothWrote(cluster, cluster.clientConfig(), "iam");
    }

    @Test
    void anUnknownAccessKeyFailsSendPollAndPartitionsForAsKafkaClientsDo() {
        Map<String, Object> config = new HashMap<>(cluster.clientConfig());
        config.put(SaslConfigs.SASL_JAAS_CONFIG, String.format(IAM_LOGIN, "stranger"));

        AuthenticationParityTest.assertEachFailsSendPollAndPartitionsForWithSaslAuthenticationException(config);
    }
}
