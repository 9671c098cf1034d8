package io.fastleader.it.transactions;

import org.junit.jupiter.api.BeforeAll;

/** {@link ExactlyOnceThroughARollTest} on a cluster that finalized {@code transaction.version} 2. */
class ExactlyOnceThroughARollUnderVersion2Test extends ExactlyOnceThroughARollTest {

    @BeforeAll
    static void startCluster() {
        startCluster(2);
    }
}
