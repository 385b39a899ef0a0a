package io.scbf.hbase.regionserver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.scbf.hbase.shared.Settings;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.ipc.FifoRpcScheduler;
import org.apache.hadoop.hbase.ipc.PriorityFunction;
import org.apache.hadoop.hbase.ipc.SimpleRpcScheduler;
import org.apache.hadoop.hbase.regionserver.FifoRpcSchedulerFactory;
import org.apache.hadoop.hbase.regionserver.SimpleRpcSchedulerFactory;
import org.apache.hadoop.hbase.security.User;
import org.apache.hadoop.hbase.shaded.protobuf.generated.RPCProtos.RequestHeader;
import org.apache.hbase.thirdparty.com.google.protobuf.Message;
import org.junit.jupiter.api.Test;

/** The index pool sits in front of the scheduler the cluster had, whichever it was. */
class IndexRpcSchedulerFactoryTest {
  static final PriorityFunction NORMAL =
      new PriorityFunction() {
        @Override
        public int getPriority(RequestHeader header, Message param, User user) {
          return 0;
        }

        @Override
        public long getDeadline(RequestHeader header, Message param) {
          return 0;
        }
      };

  static IndexRpcSchedulerFactory.IndexRpcScheduler create(Configuration conf) {
    return (IndexRpcSchedulerFactory.IndexRpcScheduler)
        new IndexRpcSchedulerFactory().create(conf, NORMAL, null);
  }

  @Test
  void theDelegateIsTheConfiguredScheduler() {
    Configuration conf = HBaseConfiguration.create();
    assertInstanceOf(SimpleRpcScheduler.class, create(conf).delegate(), "HBase's by default");
    conf.set(IndexRpcSchedulerFactory.DELEGATE, FifoRpcSchedulerFactory.class.getName());
    IndexRpcSchedulerFactory.IndexRpcScheduler scheduler = create(conf);
    assertInstanceOf(FifoRpcScheduler.class, scheduler.delegate());
    assertEquals(Settings.DEFAULT_INDEX_RPC_PRIORITY, scheduler.indexPriority());
    conf.setInt(Settings.INDEX_RPC_PRIORITY, 1234);
    assertEquals(1234, create(conf).indexPriority());
  }

  @Test
  void aDelegateThatCannotBeMadeFallsBackToHBasesScheduler() {
    Configuration conf = HBaseConfiguration.create();
    for (String name :
        new String[] {
          "org.example.NoSuchFactory",
          String.class.getName(),
          IndexRpcSchedulerFactory.class.getName()
        }) {
      conf.set(IndexRpcSchedulerFactory.DELEGATE, name);
      assertInstanceOf(
          SimpleRpcSchedulerFactory.class, IndexRpcSchedulerFactory.delegateFactory(conf), name);
    }
  }
}
