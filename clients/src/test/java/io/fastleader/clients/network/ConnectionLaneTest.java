package io.fastleader.clients.network;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;

import io.fastleader.protocol.ApiKey;
import org.junit.jupiter.api.Test;

class ConnectionLaneTest {

    @Test
    void onlyFetchRequestsTakeTheFetchLane() {
        assertThat(Arrays.stream(ApiKey.values()).filter(api -> ConnectionLane.of(api) == ConnectionLane.FETCH))
            .containsExactly(ApiKey.FETCH);
    }
}
