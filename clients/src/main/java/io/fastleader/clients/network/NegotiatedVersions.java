package io.fastleader.clients.network;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.message.ApiVersionsResponseData;
import org.apache.kafka.common.errors.UnsupportedVersionException;

/**
 * The version of each API a connection uses: the highest that both the broker and our schemas
 * speak. Callers ask for an API, never for a version.
 */
public final class NegotiatedVersions {

    private final Map<ApiKey, Short> versions;

    private NegotiatedVersions(Map<ApiKey, Short> versions) {
        this.versions = Collections.unmodifiableMap(versions);
    }

    /** Intersects the broker's ranges with our windows. */
    public static NegotiatedVersions from(ApiVersionsResponseData response) {
        Map<ApiKey, Short> versions = new EnumMap<>(ApiKey.class);
        for (ApiVersionsResponseData.ApiVersion range : response.apiKeys()) {
            ApiKey.forId(range.apiKey()).ifPresent(api -> {
                short highest = (short) Math.min(range.maxVersion(), api.highestVersion());
                if (highest >= Math.max(range.minVersion(), api.lowestVersion())) {
                    versions.put(api, highest);
                }
            });
        }
        return new NegotiatedVersions(versions);
    }

    /** Whether the broker speaks some version of {@code api} that we speak too. */
    public boolean supports(ApiKey api) {
        return versions.containsKey(api);
    }

    /**
     * The version to use for {@code api}.
     *
     * @throws UnsupportedVersionException if the broker's range and ours do not overlap
     */
    public short version(ApiKey api) {
        Short version = versions.get(api);
        if (version == null) {
            throw new UnsupportedVersionException("the broker speaks no version of " + api.displayName()
                + " in our window v" + api.lowestVersion() + "-v" + api.highestVersion());
        }
        return version;
    }

    @Override
    public String toString() {
        return versions.toString();
    }
}
