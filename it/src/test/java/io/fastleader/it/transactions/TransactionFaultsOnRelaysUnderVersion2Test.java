package io.fastleader.it.transactions;

import org.junit.jupiter.api.BeforeAll;

/** {@link TransactionFaultsOnRelaysTest} on a cluster that finalized {@code transaction.version} 2. */
class TransactionFaultsOnRelaysUnderVersion2Test extends TransactionFaultsOnRelaysTest {

    @BeforeAll
    static void startCluster() {
        startCluster(2);
    }
}
