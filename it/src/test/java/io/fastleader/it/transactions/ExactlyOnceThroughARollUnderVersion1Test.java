package io.fastleader.it.transactions;

import org.junit.jupiter.api.BeforeAll;

/** {@link ExactlyOnceThroughARollTest} on a cluster that finalized {@code transaction.version} 1. */
class ExactlyOnceThroughARollUnderVersion1Test extends ExactlyOnceThroughARollTest {

    @BeforeAll
    static void startCluster() {
        startCluster(1);
    }
}
