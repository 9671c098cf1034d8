package io.fastleader.clients.network;

import static io.fastleader.clients.network.FrameServer.ranges;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.fastleader.clients.network.FrameServer.Received;
import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.Framing;
import io.fastleader.protocol.MalformedFrameException;
import io.fastleader.protocol.message.ApiVersionsResponseData;
import io.fastleader.protocol.message.EndTxnRequestData;
import io.fastleader.protocol.message.EndTxnResponseData;
import io.fastleader.protocol.message.JoinGroupRequestData;
import io.fastleader.protocol.message.MetadataRequestData;
import io.fastleader.protocol.message.MetadataResponseData;
import io.fastleader.protocol.message.ProduceRequestData;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class BrokerConnectionTest {

    private static final ApiVersionsResponseData KAFKA_4_3 = ranges(
        ApiKey.API_VERSIONS, 0, 4, ApiKey.METADATA, 0, 13, ApiKey.PRODUCE, 3, 13, ApiKey.FETCH, 4, 18);

    /** Far more than loopback's socket buffers hold (Linux grows a send buffer to 4 MiB at most by default). */
    private static final int BIG_REQUEST_BYTES = 16 << 20;
    private static final int SMALL_RECEIVE_BUFFER = 64 << 10;

    private final FrameServer server;
    private BrokerConnection connection;

    BrokerConnectionTest() throws IOException {
        server = new FrameServer();
    }

    @AfterEach
    void close() {
        if (connection != null) {
            connection.close();
        }
        server.close();
    }

    @Test
    void negotiatesTheHighestVersionBothSidesSpeak() throws Exception {
        connect(config(5, Duration.ofSeconds(10)), ranges(
            ApiKey.API_VERSIONS, 0, 4, ApiKey.PRODUCE, 3, 9, ApiKey.FETCH, 4, 20, ApiKey.METADATA, 0, 13));

        assertThat(connection.versions().version(ApiKey.PRODUCE)).isEqualTo((short) 9);
        assertThat(connection.versions().version(ApiKey.FETCH)).isEqualTo((short) 18);
        assertThat(connection.versions().version(ApiKey.METADATA)).isEqualTo((short) 13);
        assertThat(connection.versions().supports(ApiKey.FIND_COORDINATOR)).isFalse();
    }

    /** Features travel in tagged fields of the ApiVersions answer, flexible behind a v0 response header. */
    @Test
    void keepsTheFinalizedFeaturesTheHandshakeReports() throws Exception {
        connect(config(5, Duration.ofSeconds(10)), NegotiatedVersionsTest.finalized(3, "transaction.version", 2));

        assertThat(connection.versions().finalizedLevel("transaction.version")).isEqualTo((short) 2);
        assertThat(connection.versions().finalizedFeaturesEpoch()).isEqualTo(3);
    }

    @Test
    void failsARequestForAnApiTheBrokerDoesNotSpeakWithoutSendingIt() throws Exception {
        connect(config(5, Duration.ofSeconds(10)), KAFKA_4_3);

        assertThatThrownBy(() -> connection.send(ApiKey.FIND_COORDINATOR, ApiKey.FIND_COORDINATOR.newRequest()).get())
            .hasCauseInstanceOf(UnsupportedVersionException.class)
            .hasMessageContaining("FindCoordinator");
        assertThat(server.readWithin(200)).isEmpty();
        assertThat(connection.isOpen()).isTrue();
    }

    @Test
    void aCappedSendIsBuiltAndSentAtTheCap() throws Exception {
        connect(config(5, Duration.ofSeconds(10)), ranges(ApiKey.API_VERSIONS, 0, 4, ApiKey.END_TXN, 0, 5));
        List<Short> builtAt = new CopyOnWriteArrayList<>();

        CompletableFuture<ApiMessage> response = connection.send(ApiKey.END_TXN, (short) 4, version -> {
            builtAt.add(version);
            return new EndTxnRequestData().setCommitted(true);
        });
        Received request = server.read();
        server.respond(request, new EndTxnResponseData());

        assertThat(builtAt).containsExactly((short) 4);
        assertThat(request.version()).isEqualTo((short) 4);
        assertThat(response.get(10, TimeUnit.SECONDS)).isInstanceOf(EndTxnResponseData.class);
    }

    @Test
    void aSendCappedBelowTheBrokersRangeFailsWithoutBeingSent() throws Exception {
        connect(config(5, Duration.ofSeconds(10)), ranges(ApiKey.API_VERSIONS, 0, 4, ApiKey.END_TXN, 5, 6));

        assertThatThrownBy(() -> connection.send(ApiKey.END_TXN, (short) 4, version -> new EndTxnRequestData()).get())
            .hasCauseInstanceOf(UnsupportedVersionException.class)
            .hasMessageContaining("EndTxn capped at v4")
            .hasMessageContaining("the broker (v5-v6)");
        assertThat(server.readWithin(200)).isEmpty();
        assertThat(connection.isOpen()).isTrue();
    }

    @Test
    void retriesTheHandshakeAtTheVersionTheBrokerSpeaks() throws Exception {
        CompletableFuture<BrokerConnection> opening = open(config(5, Duration.ofSeconds(10)));
        Received first = server.read();
        // A broker older than our ApiVersions answers in the v0 layout, naming its own range.
        server.respond(ApiKey.API_VERSIONS, (short) 0, first.correlationId(),
            ranges(ApiKey.API_VERSIONS, 0, 2).setErrorCode(ErrorCode.UNSUPPORTED_VERSION.code()));
        Received second = server.answerHandshake(KAFKA_4_3);
        connection = opening.get(10, TimeUnit.SECONDS);

        assertThat(first.version()).as("the newest version that names no cluster").isEqualTo((short) 4);
        assertThat(second.version()).isEqualTo((short) 2);
        assertThat(second.correlationId()).isGreaterThan(first.correlationId());
        assertThat(connection.versions().version(ApiKey.PRODUCE)).isEqualTo((short) 12);
    }

    @Test
    void namesTheClusterToCheckInApiVersionsV5() throws Exception {
        CompletableFuture<BrokerConnection> opening = open(config(5, Duration.ofSeconds(10)).withClusterCheck(new ClusterCheck("the-cluster", 3)));
        Received first = server.answerHandshake(KAFKA_4_3);
        connection = opening.get(10, TimeUnit.SECONDS);

        assertThat(first.version()).isEqualTo((short) 5);
    }

    @Test
    void aBrokerThatIsNotTheNodeOfTheClusterNamedRefusesTheConnectAsMisrouted() throws Exception {
        CompletableFuture<BrokerConnection> opening = open(config(5, Duration.ofSeconds(10)).withClusterCheck(new ClusterCheck("the-cluster", 3)));
        Received first = server.read();
        server.respond(ApiKey.API_VERSIONS, first.version(), first.correlationId(),
            new ApiVersionsResponseData().setErrorCode(ErrorCode.REBOOTSTRAP_REQUIRED.code()));

        assertThatThrownBy(() -> opening.get(10, TimeUnit.SECONDS))
            .hasCauseInstanceOf(MisroutedConnectionException.class)
            .hasMessageContaining("is not node 3 of cluster the-cluster");
    }

    @Test
    void tellsItsListenerOfEachRequestAsItIsWrittenTheHandshakeIncluded() throws Exception {
        List<ApiKey> told = new CopyOnWriteArrayList<>();
        CompletableFuture<BrokerConnection> opening = CompletableFuture.supplyAsync(
            () -> BrokerConnection.open(server.address(), config(2, Duration.ofSeconds(10)), new ConnectionListener() {
                @Override
                public void sent(ApiKey api, int bytes) {
                    told.add(api);
                }
            }));
        Received first = server.read();
        server.respond(ApiKey.API_VERSIONS, (short) 0, first.correlationId(),
            ranges(ApiKey.API_VERSIONS, 0, 2).setErrorCode(ErrorCode.UNSUPPORTED_VERSION.code()));
        server.answerHandshake(KAFKA_4_3);
        connection = opening.get(10, TimeUnit.SECONDS);

        for (int i = 0; i < 3; i++) {
            connection.send(ApiKey.METADATA, new MetadataRequestData());
        }
        Received oldest = server.read();
        server.read();

        assertThat(told).as("the third Metadata waits for room, unwritten")
            .containsExactly(ApiKey.API_VERSIONS, ApiKey.API_VERSIONS, ApiKey.METADATA, ApiKey.METADATA);
        server.respond(oldest, new MetadataResponseData());
        server.read();
        assertThat(told).containsExactly(ApiKey.API_VERSIONS, ApiKey.API_VERSIONS, ApiKey.METADATA, ApiKey.METADATA, ApiKey.METADATA);
    }

    @Test
    void tellsItsListenerOfTheConnectEachFrameWithItsSizeAndTheCloseOnce() throws Exception {
        List<String> told = new CopyOnWriteArrayList<>();
        CompletableFuture<BrokerConnection> opening = CompletableFuture.supplyAsync(
            () -> BrokerConnection.open(server.address(), config(2, Duration.ofSeconds(10)), new ConnectionListener() {
                @Override
                public void connected() {
                    told.add("connected");
                }

                @Override
                public void sent(ApiKey api, int bytes) {
                    told.add("sent " + api.displayName() + " " + bytes);
                }

                @Override
                public void received(int bytes) {
                    told.add("received " + bytes);
                }

                @Override
                public void closed() {
                    told.add("closed");
                }
            }));
        Received handshake = server.answerHandshake(KAFKA_4_3);
        connection = opening.get(10, TimeUnit.SECONDS);
        int answerBytes = FrameServer.responseFrame(handshake, KAFKA_4_3).length;

        connection.close();
        connection.close();

        assertThat(told).containsExactly("connected", "sent ApiVersions " + (Framing.SIZE_PREFIX_BYTES + handshake.frameBytes()), "received " + answerBytes, "closed");
    }

    @Test
    void sendsTheClientIdInEveryHeader() throws Exception {
        connect(config(5, Duration.ofSeconds(10)), KAFKA_4_3);

        connection.send(ApiKey.METADATA, new MetadataRequestData());

        assertThat(server.read().clientId()).isEqualTo("test-client");
    }

    @Test
    void pipelinesUpToMaxInFlightAndCompletesInOrder() throws Exception {
        connect(config(3, Duration.ofSeconds(10)), KAFKA_4_3);
        List<CompletableFuture<ApiMessage>> responses = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            responses.add(connection.send(ApiKey.METADATA, new MetadataRequestData()));
        }

        List<Received> unanswered = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            unanswered.add(server.read());
        }
        assertThat(server.readWithin(200)).as("a fourth request while three are unanswered").isEmpty();
        int answered = 0;
        while (answered < 7) {
            Received oldest = unanswered.remove(0);
            server.respond(oldest, new MetadataResponseData().setClusterId("answer-" + answered));
            answered++;
            if (answered + unanswered.size() < 7) {
                unanswered.add(server.read());
            }
        }

        for (int i = 0; i < 7; i++) {
            assertThat(((MetadataResponseData) responses.get(i).get(10, TimeUnit.SECONDS)).clusterId()).isEqualTo("answer-" + i);
        }
    }

    @Test
    void theSocketTakesTheSendAndReceiveBufferSizesConfigured() throws Exception {
        ConnectionConfig config = config(5, Duration.ofSeconds(10));
        int send = 96 * 1024;
        int receive = 48 * 1024;
        connect(new ConnectionConfig(config.clientId(), config.maxInFlight(), config.requestTimeout(), config.rebalanceRequestTimeout(),
            config.connectTimeout(), config.maxResponseBytes(), config.security(), send, receive, null), KAFKA_4_3);

        // The kernel may adjust a size it is given (Linux doubles it); a socket given the same sizes shows what it makes of them.
        try (Socket control = new Socket()) {
            control.setSendBufferSize(send);
            control.setReceiveBufferSize(receive);
            assertThat(connection.socketOptions().getSendBufferSize()).isEqualTo(control.getSendBufferSize());
            assertThat(connection.socketOptions().getReceiveBufferSize()).isEqualTo(control.getReceiveBufferSize());
        }
    }

    @Test
    void aRequestBiggerThanTheSocketBuffersArrivesWholeWhileSendReturnsAtOnce() throws Exception {
        try (FrameServer slowReader = new FrameServer(SMALL_RECEIVE_BUFFER)) {
            connection = connect(slowReader, config(5, Duration.ofSeconds(10)), KAFKA_4_3);

            // The server reads nothing until send has returned: a send that waited for the socket would never return.
            CompletableFuture<ApiMessage> response = connection.send(ApiKey.METADATA, metadataRequestOf(BIG_REQUEST_BYTES));
            Received request = slowReader.read();
            slowReader.respond(request, new MetadataResponseData().setClusterId("after-the-big-one"));

            assertThat(request.frameBytes()).isEqualTo(frameBytes(request, metadataRequestOf(BIG_REQUEST_BYTES)));
            assertThat(((MetadataResponseData) response.get(10, TimeUnit.SECONDS)).clusterId()).isEqualTo("after-the-big-one");
        }
    }

    @Test
    void aRequestSentWhileTheWriterFinishesABigOneFollowsIt() throws Exception {
        try (FrameServer slowReader = new FrameServer(SMALL_RECEIVE_BUFFER)) {
            connection = connect(slowReader, config(5, Duration.ofSeconds(10)), KAFKA_4_3);

            CompletableFuture<ApiMessage> big = connection.send(ApiKey.METADATA, metadataRequestOf(BIG_REQUEST_BYTES));
            CompletableFuture<ApiMessage> small = connection.send(ApiKey.METADATA, new MetadataRequestData());
            Received first = slowReader.read();
            Received second = slowReader.read();
            slowReader.respond(first, new MetadataResponseData().setClusterId("big"));
            slowReader.respond(second, new MetadataResponseData().setClusterId("small"));

            assertThat(first.frameBytes()).isGreaterThan(BIG_REQUEST_BYTES);
            assertThat(second.frameBytes()).isLessThan(100);
            assertThat(((MetadataResponseData) big.get(10, TimeUnit.SECONDS)).clusterId()).isEqualTo("big");
            assertThat(((MetadataResponseData) small.get(10, TimeUnit.SECONDS)).clusterId()).isEqualTo("small");
        }
    }

    @Test
    void anInterruptedCallersRequestGoesOutWithoutClosingTheConnection() throws Exception {
        connect(config(5, Duration.ofSeconds(10)), KAFKA_4_3);

        Thread.currentThread().interrupt();
        CompletableFuture<ApiMessage> response;
        try {
            response = connection.send(ApiKey.METADATA, new MetadataRequestData());
        } finally {
            assertThat(Thread.interrupted()).as("send leaves the interrupt for the caller").isTrue();
        }
        server.respond(server.read(), new MetadataResponseData().setClusterId("despite-the-interrupt"));

        assertThat(((MetadataResponseData) response.get(10, TimeUnit.SECONDS)).clusterId()).isEqualTo("despite-the-interrupt");
        assertThat(connection.isOpen()).isTrue();
    }

    @Test
    void responsesArrivingTogetherAreSplitIntoTheirFrames() throws Exception {
        connect(config(5, Duration.ofSeconds(10)), KAFKA_4_3);
        CompletableFuture<ApiMessage> first = connection.send(ApiKey.METADATA, new MetadataRequestData());
        CompletableFuture<ApiMessage> second = connection.send(ApiKey.METADATA, new MetadataRequestData());
        byte[] one = FrameServer.responseFrame(server.read(), new MetadataResponseData().setClusterId("one"));
        byte[] two = FrameServer.responseFrame(server.read(), new MetadataResponseData().setClusterId("two"));

        server.writeRaw(ByteBuffer.allocate(one.length + two.length).put(one).put(two).array());

        assertThat(((MetadataResponseData) first.get(10, TimeUnit.SECONDS)).clusterId()).isEqualTo("one");
        assertThat(((MetadataResponseData) second.get(10, TimeUnit.SECONDS)).clusterId()).isEqualTo("two");
    }

    @Test
    void aResponseBiggerThanTheReadBufferIsReadWhole() throws Exception {
        connect(config(5, Duration.ofSeconds(10)), KAFKA_4_3);
        CompletableFuture<ApiMessage> response = connection.send(ApiKey.METADATA, new MetadataRequestData());
        MetadataResponseData big = new MetadataResponseData();
        for (int id = 0; id < 3_000; id++) {
            big.brokers().add(new MetadataResponseData.MetadataResponseBroker().setNodeId(id).setHost("broker-" + id + "h".repeat(100)));
        }

        server.respond(server.read(), big);

        assertThat(((MetadataResponseData) response.get(10, TimeUnit.SECONDS)).brokers()).hasSize(3_000);
    }

    @Test
    void aRequestWithoutResponseClosesTheConnectionAndFailsEveryRequest() throws Exception {
        connect(config(5, Duration.ofMillis(300)), KAFKA_4_3);
        CompletableFuture<ApiMessage> first = connection.send(ApiKey.METADATA, new MetadataRequestData());
        CompletableFuture<ApiMessage> second = connection.send(ApiKey.METADATA, new MetadataRequestData());
        server.read();

        assertFailsWithConnectionError(first).isInstanceOf(RequestTimedOutException.class)
            .hasMessageContaining("Metadata request to").hasMessageContaining("no response within 300 ms (request.timeout.ms)");
        assertFailsWithConnectionError(second).isInstanceOf(RequestTimedOutException.class);
        assertThat(connection.isOpen()).isFalse();
    }

    @Test
    void aRequestExpectingNoResponseIsDoneOnceWrittenAndHoldsNoPlaceInFlight() throws Exception {
        connect(config(1, Duration.ofSeconds(10)), KAFKA_4_3);

        CompletableFuture<Void> written = connection.sendWithoutResponse(ApiKey.PRODUCE, new ProduceRequestData().setAcks((short) 0));
        written.get(10, TimeUnit.SECONDS);

        assertThat(connection.pendingRequests()).as("nothing left to answer, so nothing to time out").isZero();
        assertThat(server.read().api()).isEqualTo(ApiKey.PRODUCE);
    }

    @Test
    void aResponseAfterRequestsExpectingNoneIsMatchedToItsOwnRequest() throws Exception {
        connect(config(1, Duration.ofSeconds(10)), KAFKA_4_3);
        connection.sendWithoutResponse(ApiKey.PRODUCE, new ProduceRequestData().setAcks((short) 0)).get(10, TimeUnit.SECONDS);
        connection.sendWithoutResponse(ApiKey.PRODUCE, new ProduceRequestData().setAcks((short) 0)).get(10, TimeUnit.SECONDS);

        CompletableFuture<ApiMessage> response = connection.send(ApiKey.METADATA, new MetadataRequestData());
        server.read();
        server.read();
        server.respond(server.read(), new MetadataResponseData().setClusterId("the-metadata-answer"));

        assertThat(((MetadataResponseData) response.get(10, TimeUnit.SECONDS)).clusterId()).isEqualTo("the-metadata-answer");
        assertThat(connection.isOpen()).isTrue();
    }

    @Test
    void aRequestExpectingNoResponseIsDoneOnlyOnceTheWriterHasWrittenItWhole() throws Exception {
        try (FrameServer slowReader = new FrameServer(SMALL_RECEIVE_BUFFER)) {
            connection = connect(slowReader, config(5, Duration.ofSeconds(10)), KAFKA_4_3);

            CompletableFuture<Void> written = connection.sendWithoutResponse(ApiKey.METADATA, metadataRequestOf(BIG_REQUEST_BYTES));

            assertThat(written).as("the server has read nothing, so most of the frame is unwritten").isNotDone();
            assertThat(connection.pendingRequests()).isEqualTo(1);
            slowReader.read();
            written.get(10, TimeUnit.SECONDS);
            assertThat(connection.pendingRequests()).isZero();
        }
    }

    @Test
    void aRequestExpectingNoResponseWrittenWholeIsDoneThoughTheBrokerClosesTheConnectionAtOnce() throws Exception {
        try (FrameServer slowReader = new FrameServer(SMALL_RECEIVE_BUFFER)) {
            connection = connect(slowReader, config(5, Duration.ofSeconds(10)), KAFKA_4_3);
            CompletableFuture<Void> written = connection.sendWithoutResponse(ApiKey.METADATA, metadataRequestOf(BIG_REQUEST_BYTES));

            // As a broker refuses an acks=0 request it has read: the close may reach the client before its write has returned.
            slowReader.read();
            slowReader.disconnect();

            written.get(10, TimeUnit.SECONDS);
            assertThat(connection.whenClosed().get(10, TimeUnit.SECONDS)).isInstanceOf(BrokerConnectionException.class);
        }
    }

    @Test
    void aRequestExpectingNoResponseFailsWithTheConnectionIfNotWrittenWhole() throws Exception {
        try (FrameServer slowReader = new FrameServer(SMALL_RECEIVE_BUFFER)) {
            connection = connect(slowReader, config(5, Duration.ofSeconds(10)), KAFKA_4_3);
            CompletableFuture<Void> written = connection.sendWithoutResponse(ApiKey.METADATA, metadataRequestOf(BIG_REQUEST_BYTES));

            slowReader.disconnect();

            assertThatThrownBy(() -> written.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(BrokerConnectionException.class);
        }
    }

    @Test
    void aConnectionTheBrokerClosesTellsWhoeverWaitsForItsClose() throws Exception {
        connect(config(5, Duration.ofSeconds(10)), KAFKA_4_3);
        CompletableFuture<BrokerConnectionException> closed = connection.whenClosed();
        connection.sendWithoutResponse(ApiKey.PRODUCE, new ProduceRequestData().setAcks((short) 0)).get(10, TimeUnit.SECONDS);
        server.read();

        // As a broker refuses an acks=0 Produce request: it closes the connection.
        server.disconnect();

        assertThat(closed.get(10, TimeUnit.SECONDS)).hasMessageContaining("reading from");
        assertThat(connection.isOpen()).isFalse();
    }

    @Test
    void tellsItsListenerARequestExpectingNoResponseWasWritten() throws Exception {
        List<String> told = new CopyOnWriteArrayList<>();
        CompletableFuture<BrokerConnection> opening = CompletableFuture.supplyAsync(
            () -> BrokerConnection.open(server.address(), config(2, Duration.ofSeconds(10)), new ConnectionListener() {
                @Override
                public void sent(ApiKey api, int bytes) {
                    told.add("sent " + api.displayName());
                }

                @Override
                public void writtenWithoutResponse() {
                    told.add("written without response");
                }

                @Override
                public void received(int bytes) {
                    told.add("received");
                }
            }));
        server.answerHandshake(KAFKA_4_3);
        connection = opening.get(10, TimeUnit.SECONDS);

        connection.sendWithoutResponse(ApiKey.PRODUCE, new ProduceRequestData().setAcks((short) 0)).get(10, TimeUnit.SECONDS);

        assertThat(told).containsExactly("sent ApiVersions", "received", "sent Produce", "written without response");
    }

    @Test
    void aJoinGroupWithoutResponseTimesOutAfterTheRebalanceRequestTimeoutNamingIt() throws Exception {
        connect(config(5, Duration.ofMillis(300)).withRebalanceRequestTimeout(Duration.ofMillis(600)),
            ranges(ApiKey.API_VERSIONS, 0, 4, ApiKey.JOIN_GROUP, ApiKey.JOIN_GROUP.lowestVersion(), ApiKey.JOIN_GROUP.highestVersion()));
        CompletableFuture<ApiMessage> join = connection.send(ApiKey.JOIN_GROUP, new JoinGroupRequestData());
        server.read();

        assertFailsWithConnectionError(join).isInstanceOf(RequestTimedOutException.class)
            .hasMessageContaining("JoinGroup request to")
            .hasMessageContaining("no response within 600 ms (the rebalance request timeout: max.poll.interval.ms + 5000 ms, "
                + "at least request.timeout.ms)");
        assertThat(connection.isOpen()).isFalse();
    }

    @Test
    void aTimedOutRequestIsFailedOutsideTheConnectionsLock() throws Exception {
        CompletableFuture<Boolean> askedFromItsCallback = aReadRequestWhoseCallbackAsksTheConnection(Duration.ofMillis(300));

        assertThat(askedFromItsCallback.get(20, TimeUnit.SECONDS)).as("the connection, asked from another thread, is closed").isFalse();
    }

    @Test
    void aRequestOnABrokenConnectionIsFailedOutsideTheConnectionsLock() throws Exception {
        CompletableFuture<Boolean> askedFromItsCallback = aReadRequestWhoseCallbackAsksTheConnection(Duration.ofSeconds(10));

        server.disconnect();

        assertThat(askedFromItsCallback.get(20, TimeUnit.SECONDS)).as("the connection, asked from another thread, is closed").isFalse();
    }

    /** Connects with {@code requestTimeout} and sends a request the broker reads and leaves unanswered, watched as below. */
    private CompletableFuture<Boolean> aReadRequestWhoseCallbackAsksTheConnection(Duration requestTimeout) throws Exception {
        connect(config(5, requestTimeout), KAFKA_4_3);
        CompletableFuture<Boolean> asked = askTheConnectionFromTheCallbackOf(connection.send(ApiKey.METADATA, new MetadataRequestData()));
        server.read();
        return asked;
    }

    /**
     * When {@code response} completes, its callback asks the connection, from another thread,
     * whether it is open, and waits up to 5 s for the answer: a callback run under the
     * connection's lock would wait in vain, and the returned future fail.
     */
    private CompletableFuture<Boolean> askTheConnectionFromTheCallbackOf(CompletableFuture<ApiMessage> response) {
        CompletableFuture<Boolean> answer = new CompletableFuture<>();
        response.whenComplete((ignored, failure) -> {
            try {
                answer.complete(CompletableFuture.supplyAsync(connection::isOpen).get(5, TimeUnit.SECONDS));
            } catch (Exception e) {
                answer.completeExceptionally(e);
            }
        });
        return answer;
    }

    @Test
    void aHugeSizePrefixClosesTheConnectionBeforeAllocating() throws Exception {
        connect(config(5, Duration.ofSeconds(10)), KAFKA_4_3);
        CompletableFuture<ApiMessage> response = connection.send(ApiKey.METADATA, new MetadataRequestData());
        server.read();

        server.writeRaw(ByteBuffer.allocate(4).putInt(Integer.MAX_VALUE).array());

        assertFailsWithConnectionError(response).hasRootCauseInstanceOf(MalformedFrameException.class)
            .hasMessageContaining("exceeds the limit");
    }

    @Test
    void aBodyCutShortByTheBrokerClosingFailsTheRequest() throws Exception {
        connect(config(5, Duration.ofSeconds(10)), KAFKA_4_3);
        CompletableFuture<ApiMessage> response = connection.send(ApiKey.METADATA, new MetadataRequestData());
        Received request = server.read();

        server.writeRaw(ByteBuffer.allocate(10).putInt(100).putInt(request.correlationId()).array());
        server.disconnect();

        assertFailsWithConnectionError(response).hasMessageContaining("reading from");
    }

    @Test
    void aMalformedBodyClosesTheConnection() throws Exception {
        connect(config(5, Duration.ofSeconds(10)), KAFKA_4_3);
        CompletableFuture<ApiMessage> response = connection.send(ApiKey.METADATA, new MetadataRequestData());
        Received request = server.read();

        // A complete frame whose body claims a brokers array of 2^31 - 1 entries.
        server.writeRaw(ByteBuffer.allocate(17).putInt(13).putInt(request.correlationId()).put((byte) 0).putInt(0)
            .putInt(Integer.MAX_VALUE).array());

        assertFailsWithConnectionError(response).hasMessageContaining("malformed response");
    }

    @Test
    void aDisconnectMidRequestFailsItAndEveryLaterRequestAtOnce() throws Exception {
        connect(config(5, Duration.ofSeconds(10)), KAFKA_4_3);
        CompletableFuture<ApiMessage> response = connection.send(ApiKey.METADATA, new MetadataRequestData());
        server.read();

        server.disconnect();

        assertFailsWithConnectionError(response);
        assertFailsWithConnectionError(connection.send(ApiKey.METADATA, new MetadataRequestData()));
    }

    @Test
    void aResponseToAnotherRequestClosesTheConnection() throws Exception {
        connect(config(5, Duration.ofSeconds(10)), KAFKA_4_3);
        CompletableFuture<ApiMessage> response = connection.send(ApiKey.METADATA, new MetadataRequestData());
        Received request = server.read();

        server.respond(ApiKey.METADATA, request.version(), request.correlationId() + 7, new MetadataResponseData());

        assertFailsWithConnectionError(response).hasMessageContaining("correlation id " + (request.correlationId() + 7));
    }

    @Test
    void closeFailsRequestsStillQueued() throws Exception {
        connect(config(1, Duration.ofSeconds(10)), KAFKA_4_3);
        CompletableFuture<ApiMessage> inFlight = connection.send(ApiKey.METADATA, new MetadataRequestData());
        CompletableFuture<ApiMessage> queued = connection.send(ApiKey.METADATA, new MetadataRequestData());
        server.read();

        connection.close();

        assertFailsWithConnectionError(inFlight).hasMessageContaining("closed by the client");
        assertFailsWithConnectionError(queued).hasMessageContaining("closed by the client");
    }

    @Test
    void closeReturnsOnlyOnceTheLoopOfAConnectionOpenedOnItsOwnEnded() throws Exception {
        connect(config(5, Duration.ofSeconds(10)), KAFKA_4_3);
        List<Thread> threads = threadsOf(server);
        assertThat(threads).as("the connection's I/O loop").hasSize(1);

        connection.close();

        assertThat(threads).as("the connection's threads alive after close").noneMatch(Thread::isAlive);
    }

    @Test
    void closeOnAnInterruptedThreadReturnsOnlyOnceTheConnectionsLoopEndedAndKeepsTheInterrupt() throws Exception {
        connect(config(5, Duration.ofSeconds(10)), KAFKA_4_3);
        List<Thread> threads = threadsOf(server);
        assertThat(threads).as("the connection's I/O loop").hasSize(1);

        Thread.currentThread().interrupt();
        try {
            connection.close();
        } finally {
            assertThat(Thread.interrupted()).as("close leaves the interrupt for the caller").isTrue();
        }

        assertThat(threads).as("the connection's threads alive after close").noneMatch(Thread::isAlive);
    }

    @Test
    void anUnreachableBrokerIsAConnectionError() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }

        assertThatThrownBy(() -> BrokerConnection.open(new java.net.InetSocketAddress("127.0.0.1", closedPort),
            config(5, Duration.ofSeconds(10))))
            .isInstanceOf(BrokerConnectionException.class)
            .hasMessageContaining("cannot connect to 127.0.0.1:" + closedPort);
    }

    /** The I/O loop threads of connections to {@code broker} opened on their own, outside a pool. */
    static List<Thread> threadsOf(FrameServer broker) {
        String port = ":" + broker.address().getPort() + "-";
        return Thread.getAllStackTraces().keySet().stream()
            .filter(thread -> thread.getName().contains(port) && thread.getName().startsWith("fastleader-io-"))
            .toList();
    }

    /** A Metadata request for topics whose names add up to about {@code bytes}. */
    private static MetadataRequestData metadataRequestOf(int bytes) {
        String name = "t".repeat(1_000);
        List<MetadataRequestData.MetadataRequestTopic> topics = new ArrayList<>();
        for (int i = 0; i < bytes / name.length(); i++) {
            topics.add(new MetadataRequestData.MetadataRequestTopic().setName(name));
        }
        return new MetadataRequestData().setTopics(topics);
    }

    private static int frameBytes(Received request, MetadataRequestData body) {
        return Framing.encodeRequest(request.api(), request.version(), request.correlationId(), request.clientId(), body).remaining()
            - Framing.SIZE_PREFIX_BYTES;
    }

    private static ConnectionConfig config(int maxInFlight, Duration requestTimeout) {
        return new ConnectionConfig("test-client", maxInFlight, requestTimeout, Duration.ofSeconds(5), 1 << 20, SecurityConfig.PLAINTEXT);
    }

    private CompletableFuture<BrokerConnection> open(ConnectionConfig config) {
        return CompletableFuture.supplyAsync(() -> BrokerConnection.open(server.address(), config));
    }

    private void connect(ConnectionConfig config, ApiVersionsResponseData ranges) throws Exception {
        connection = connect(server, config, ranges);
    }

    private static BrokerConnection connect(FrameServer to, ConnectionConfig config, ApiVersionsResponseData ranges) throws Exception {
        CompletableFuture<BrokerConnection> opening = CompletableFuture.supplyAsync(() -> BrokerConnection.open(to.address(), config));
        to.answerHandshake(ranges);
        return opening.get(10, TimeUnit.SECONDS);
    }

    private static org.assertj.core.api.AbstractThrowableAssert<?, ? extends Throwable> assertFailsWithConnectionError(
        CompletableFuture<ApiMessage> response) {
        ExecutionException failure = org.assertj.core.api.Assertions.catchThrowableOfType(
            () -> response.get(10, TimeUnit.SECONDS), ExecutionException.class);
        assertThat(failure).as("the request failed").isNotNull();
        return assertThat(failure.getCause()).isInstanceOf(BrokerConnectionException.class);
    }
}
