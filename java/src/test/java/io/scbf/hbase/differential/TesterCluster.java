package io.scbf.hbase.differential;

import io.scbf.hbase.shared.Settings;
import io.scbf.hbase.testing.MiniCluster;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;

/**
 * The tester's mini cluster (two region servers, blocks read off-heap) and the connections its runs
 * read through: the product's, with pages of two rows so that streams and limits cross pages; one
 * whose planner always takes the index; and the oracle's, which gives up within seconds (see {@link
 * Runner}).
 */
final class TesterCluster implements AutoCloseable {
  private final HBaseTestingUtility util;
  private final Connection reader;
  private final Connection indexPlanned;
  private final Connection oracle;

  TesterCluster() throws Exception {
    util = MiniCluster.start(2, MiniCluster::readBlocksOffHeap);
    Configuration conf = new Configuration(util.getConfiguration());
    conf.setInt(Settings.CLIENT_PAGE_ROWS, 2);
    reader = ConnectionFactory.createConnection(conf);
    Configuration index = new Configuration(conf);
    index.set(Settings.PLANNER, "index"); // point queries take the index, however small the table
    indexPlanned = ConnectionFactory.createConnection(index);
    Configuration impatient = new Configuration(util.getConfiguration());
    impatient.setInt(HConstants.HBASE_CLIENT_RETRIES_NUMBER, 5);
    impatient.setInt(HConstants.HBASE_CLIENT_OPERATION_TIMEOUT, 15_000);
    oracle = ConnectionFactory.createConnection(impatient);
  }

  Runner runner(Stats stats) {
    return new Runner(util, reader, indexPlanned, oracle, stats);
  }

  @Override
  public void close() throws Exception {
    reader.close();
    indexPlanned.close();
    oracle.close();
    util.shutdownMiniCluster();
  }
}
