package io.fastleader.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;

import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.message.MessageSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ApiKeyTest {

    @ParameterizedTest
    @EnumSource(ApiKey.class)
    void firstFlexibleVersionIsTheSchemas(ApiKey api) {
        MessageSpec request = schema(api.displayName() + "Request");
        short expected = request.flexibleVersions().empty() ? ApiKey.NEVER_FLEXIBLE : request.flexibleVersions().lowest();

        assertThat(api.firstFlexibleVersion()).isEqualTo(expected);
    }

    @ParameterizedTest
    @EnumSource(ApiKey.class)
    void requestAndResponseShareOneWindowAndKey(ApiKey api) {
        assertThat(api.newResponse().apiKey()).isEqualTo(api.id());
        assertThat(api.newResponse().lowestSupportedVersion()).isEqualTo(api.lowestVersion());
        assertThat(api.newResponse().highestSupportedVersion()).isEqualTo(api.highestVersion());
        assertThat(schema(api.displayName() + "Response").validVersions())
            .isEqualTo(schema(api.displayName() + "Request").validVersions());
    }

    @ParameterizedTest
    @EnumSource(ApiKey.class)
    void headerVersionsAreKafkaClients(ApiKey api) {
        ApiKeys kafkas = ApiKeys.forId(api.id());
        for (short v = api.lowestVersion(); v <= api.highestVersion(); v++) {
            assertThat(api.requestHeaderVersion(v)).as("%s v%d request header", api, v).isEqualTo(kafkas.requestHeaderVersion(v));
            assertThat(api.responseHeaderVersion(v)).as("%s v%d response header", api, v).isEqualTo(kafkas.responseHeaderVersion(v));
        }
    }

    @Test
    void apiVersionsResponsesKeepHeaderV0AtFlexibleVersions() {
        assertThat(ApiKey.API_VERSIONS.isFlexible((short) 3)).isTrue();
        assertThat(ApiKey.API_VERSIONS.requestHeaderVersion((short) 3)).isEqualTo((short) 2);
        assertThat(ApiKey.API_VERSIONS.responseHeaderVersion((short) 3)).isEqualTo((short) 0);
    }

    @Test
    void windowsIncludeTheKip951Versions() {
        assertThat(ApiKey.PRODUCE.isSupported((short) 10)).isTrue();
        assertThat(ApiKey.FETCH.isSupported((short) 16)).isTrue();
    }

    /**
     * The classic group APIs' windows are ones every broker from 3.7 to 4.4 accepts. kafka-clients
     * 4.3.1's JoinGroup window starts at v0, but Kafka 4.0.0 refuses v0 and v1 (KIP-896; 4.0.1 and
     * 4.1.0 took them back, KAFKA-19444), so ours starts at v2 and no oracle test would notice
     * a floor widened to kafka-clients' own.
     */
    @Test
    void classicGroupWindowsAreOnesEveryBrokerFrom37To44Accepts() {
        assertThat(window(ApiKey.JOIN_GROUP)).isEqualTo("v2-v9");
        assertThat(window(ApiKey.SYNC_GROUP)).isEqualTo("v0-v5");
        assertThat(window(ApiKey.HEARTBEAT)).isEqualTo("v0-v4");
        assertThat(window(ApiKey.LEAVE_GROUP)).isEqualTo("v0-v5");
    }

    private static String window(ApiKey api) {
        return "v" + api.lowestVersion() + "-v" + api.highestVersion();
    }

    @Test
    void forIdFindsEveryApiWeSpeakAndNoOther() {
        Arrays.stream(ApiKey.values()).forEach(api -> assertThat(ApiKey.forId(api.id())).contains(api));
        assertThat(ApiKey.forId(ApiKeys.DELETE_RECORDS.id)).isEmpty();
        assertThat(ApiKey.forId((short) -1)).isEmpty();
    }

    private static MessageSpec schema(String name) {
        return MessageSchemas.ours().stream()
            .filter(spec -> spec.name().equals(name))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no schema " + name));
    }
}
