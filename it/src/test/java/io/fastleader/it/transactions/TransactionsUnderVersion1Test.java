package io.fastleader.it.transactions;

import org.junit.jupiter.api.BeforeAll;

/** {@link TransactionsOnRealBrokersTest} on a cluster that finalized {@code transaction.version} 1. */
class TransactionsUnderVersion1Test extends TransactionsOnRealBrokersTest {

    @BeforeAll
    static void startCluster() {
        startCluster(1);
    }
}
