package io.fastleader.it.transactions;

import org.junit.jupiter.api.BeforeAll;

/** {@link TransactionFaultsOnRelaysTest} on a cluster that finalized {@code transaction.version} 1. */
class TransactionFaultsOnRelaysUnderVersion1Test extends TransactionFaultsOnRelaysTest {

    @BeforeAll
    static void startCluster() {
        startCluster(1);
    }
}
