package io.fastleader.it.transactions;

import org.junit.jupiter.api.BeforeAll;

/** {@link TransactionFaultsTest} on a cluster that finalized {@code transaction.version} 2. */
class TransactionFaultsUnderVersion2Test extends TransactionFaultsTest {

    @BeforeAll
    static void startCluster() {
        startCluster(2);
    }
}
