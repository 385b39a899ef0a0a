package io.scbf.hbase.regionserver;

import io.scbf.hbase.shared.Settings;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.CellScannable;
import org.apache.hadoop.hbase.CellScanner;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.ipc.DelegatingHBaseRpcController;
import org.apache.hadoop.hbase.ipc.HBaseRpcController;
import org.apache.hadoop.hbase.ipc.RpcControllerFactory;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * RPC controllers of the region servers' index-write connection ({@link IndexServices}): every call
 * to a user table (which, on that connection, is an index table) and every region-server endpoint
 * call ({@link IndexWriteEndpoint}) carries the index priority ({@code scbf.index.rpc.priority}),
 * so it runs on the index handler pool.
 *
 * <p>Setting the priority on each mutation is not enough: HBase 2.x's {@code HTable.batch}
 * (AsyncProcess.submitAll) takes the priority of Puts only, so a batch of index Deletes went out
 * without it, queued behind data writes on the general handlers, and could deadlock them (found by
 * IndexWriteLoadTest). Phoenix sets its index priority the same way, with a controller factory on
 * its index-writer connection.
 */
@InterfaceAudience.Private
public class IndexRpcControllerFactory extends RpcControllerFactory {
  private final int indexPriority;

  public IndexRpcControllerFactory(Configuration conf) {
    super(conf);
    this.indexPriority = Settings.from(conf).indexRpcPriority(conf);
  }

  @Override
  public HBaseRpcController newController() {
    return new IndexController(indexPriority, super.newController());
  }

  @Override
  public HBaseRpcController newController(CellScanner cellScanner) {
    return new IndexController(indexPriority, super.newController(cellScanner));
  }

  @Override
  public HBaseRpcController newController(RegionInfo region, CellScanner cellScanner) {
    return new IndexController(indexPriority, super.newController(region, cellScanner));
  }

  @Override
  public HBaseRpcController newController(List<CellScannable> cellIterables) {
    return new IndexController(indexPriority, super.newController(cellIterables));
  }

  @Override
  public HBaseRpcController newController(RegionInfo region, List<CellScannable> cellIterables) {
    return new IndexController(indexPriority, super.newController(region, cellIterables));
  }

  private static final class IndexController extends DelegatingHBaseRpcController {
    private final int indexPriority;

    IndexController(int indexPriority, HBaseRpcController delegate) {
      super(delegate);
      this.indexPriority = indexPriority;
      // Calls that name no table get it too: IndexWriteEndpoint's region-server calls.
      delegate.setPriority(indexPriority);
    }

    @Override
    public void setPriority(TableName table) {
      if (table != null && !table.isSystemTable()) {
        setPriority(indexPriority);
      } else {
        super.setPriority(table); // hbase:meta lookups keep HBase's system priority
      }
    }
  }
}
