package io.fastleader.it.transactions;

import org.junit.jupiter.api.BeforeAll;

/** {@link TransactionsOnRealBrokersTest} on a cluster that finalized {@code transaction.version} 2. */
class TransactionsUnderVersion2Test extends TransactionsOnRealBrokersTest {

    @BeforeAll
    static void startCluster() {
        startCluster(2);
    }
}
