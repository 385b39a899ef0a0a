package io.scbf.hbase.regionserver;

import io.scbf.hbase.shared.IndexCatalog;
import io.scbf.hbase.shared.Settings;
import io.scbf.hbase.shared.proto.IndexProtos.IndexWriteService;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Abortable;
import org.apache.hadoop.hbase.HBaseInterfaceAudience;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.ipc.CallRunner;
import org.apache.hadoop.hbase.ipc.DelegatingRpcScheduler;
import org.apache.hadoop.hbase.ipc.FastPathBalancedQueueRpcExecutor;
import org.apache.hadoop.hbase.ipc.PriorityFunction;
import org.apache.hadoop.hbase.ipc.RpcExecutor;
import org.apache.hadoop.hbase.ipc.RpcScheduler;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.hadoop.hbase.regionserver.RpcSchedulerFactory;
import org.apache.hadoop.hbase.regionserver.SimpleRpcSchedulerFactory;
import org.apache.hadoop.hbase.security.Superusers;
import org.apache.hadoop.hbase.security.User;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.CoprocessorServiceRequest;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.MultiRequest;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.MutateRequest;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.RegionAction;
import org.apache.hadoop.hbase.shaded.protobuf.generated.HBaseProtos.RegionSpecifier;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hbase.thirdparty.com.google.protobuf.Message;
import org.apache.yetus.audience.InterfaceAudience;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Region server RPC scheduler with a dedicated handler pool for index writes (the index-write
 * deadlock of docs/design.md, "The write path", answered like Phoenix's index RPC queue), in front
 * of the scheduler the cluster had: every other call goes to that one.
 *
 * <p>A data-table handler that writes index rows blocks until the index region server answers. If
 * index writes queued behind ordinary requests on the same handlers, a burst of indexed writes
 * could occupy every handler of every server with calls waiting on index RPCs that no free handler
 * can serve. Here index writes carry the index priority ({@code scbf.index.rpc.priority}, 1500 by
 * default) and run on their own pool. The priority is set on every call of the index-write
 * connection by {@link IndexRpcControllerFactory}: a per-mutation priority alone is dropped for
 * Deletes by HTable.batch, and index deletes then deadlocked the general handlers
 * (IndexWriteLoadTest shows both the stall and its absence). Index-table handlers never make remote
 * calls (the index-table observer only touches its region's native filter and the local cache), so
 * the index pool always drains and the data handlers waiting on it always progress: there is no
 * cycle.
 *
 * <p>Coexistence: the scheduler the cluster had is created by the factory named in {@code
 * scbf.rpc.scheduler.delegate} (HBase's SimpleRpcSchedulerFactory by default; {@code
 * Coprocessors.configure} moves a configured one there, e.g. Apache Phoenix's
 * PhoenixRpcSchedulerFactory) and receives every call this pool does not take, so its own pools
 * (Phoenix's index, metadata and server-side queues) work as before.
 *
 * <p>Any client can set a request's priority, so the priority alone does not admit a call to the
 * index pool: every region it writes must be an index region of this server, or it must be an
 * {@link IndexWriteEndpoint} call from a superuser. A data write sent with the index priority would
 * otherwise occupy an index handler while it waits for its own index writes, and enough of them
 * would stall the pool. The same checks keep another product's calls at the legacy priority 1000
 * (Phoenix's index writes) going to their own scheduler.
 */
@InterfaceAudience.LimitedPrivate(HBaseInterfaceAudience.CONFIG)
public class IndexRpcSchedulerFactory implements RpcSchedulerFactory {
  private static final Logger LOG = LoggerFactory.getLogger(IndexRpcSchedulerFactory.class);

  /**
   * @deprecated the index priority of earlier releases, equal to Apache Phoenix's; the priority is
   *     now {@code scbf.index.rpc.priority} (1500 by default). Calls at this priority are still
   *     admitted to the index pool for rolling upgrades.
   */
  @Deprecated public static final int INDEX_QOS = Settings.LEGACY_INDEX_RPC_PRIORITY;

  private static final String INDEX_WRITE_SERVICE = IndexWriteService.getDescriptor().getFullName();

  public static final String INDEX_HANDLER_COUNT = Settings.INDEX_HANDLER_COUNT;
  public static final int DEFAULT_INDEX_HANDLER_COUNT = Settings.DEFAULT_INDEX_HANDLER_COUNT;

  /**
   * The factory of the scheduler that receives every call the index pool does not take (default:
   * HBase's {@code SimpleRpcSchedulerFactory}).
   */
  public static final String DELEGATE = Settings.RPC_SCHEDULER_DELEGATE;

  /** As RpcServer.DEFAULT_MAX_CALLQUEUE_LENGTH_PER_HANDLER (protected there). */
  private static final int MAX_CALLQUEUE_LENGTH_PER_HANDLER = 10;

  @Override
  public RpcScheduler create(Configuration conf, PriorityFunction priority, Abortable server) {
    RpcScheduler delegate = delegateFactory(conf).create(conf, priority, server);
    Settings settings = Settings.from(conf);
    return new IndexRpcScheduler(
        conf,
        delegate,
        settings.indexRpcPriority(conf),
        settings.indexHandlerCount(),
        priority,
        server);
  }

  /**
   * @deprecated required by the interface since HBase 1.0; HBase calls the 3-argument form.
   */
  @Override
  @Deprecated
  public RpcScheduler create(Configuration conf, PriorityFunction priority) {
    return create(conf, priority, null);
  }

  /**
   * The factory {@link #DELEGATE} names; HBase's own if it names none, this class, or a class that
   * cannot be made into one (logged at ERROR: a region server should not fail to start over it).
   */
  static RpcSchedulerFactory delegateFactory(Configuration conf) {
    String name = conf.getTrimmed(DELEGATE, SimpleRpcSchedulerFactory.class.getName());
    if (name.equals(IndexRpcSchedulerFactory.class.getName())) {
      LOG.error("scbf: {} names {} itself; using HBase's scheduler", DELEGATE, name);
      return new SimpleRpcSchedulerFactory();
    }
    try {
      return Class.forName(name)
          .asSubclass(RpcSchedulerFactory.class)
          .getDeclaredConstructor()
          .newInstance();
    } catch (ReflectiveOperationException | ClassCastException | LinkageError e) {
      LOG.error(
          "scbf: {} = {} is not an RpcSchedulerFactory on the class path ({}); using HBase's"
              + " scheduler",
          DELEGATE,
          name,
          e.toString());
      return new SimpleRpcSchedulerFactory();
    }
  }

  static final class IndexRpcScheduler extends DelegatingRpcScheduler {
    private final int indexPriority;
    private final PriorityFunction priority;
    private final HRegionServer regionServer; // null when not hosted by a region server
    private final RpcExecutor indexExecutor;
    private final AtomicLong indexCalls = new AtomicLong();
    private int port;

    IndexRpcScheduler(
        Configuration conf,
        RpcScheduler delegate,
        int indexPriority,
        int indexHandlers,
        PriorityFunction priority,
        Abortable server) {
      super(delegate);
      this.indexPriority = indexPriority;
      this.priority = priority;
      this.regionServer = server instanceof HRegionServer rs ? rs : null;
      int maxQueue =
          conf.getInt(
              RpcScheduler.IPC_SERVER_MAX_CALLQUEUE_LENGTH,
              indexHandlers * MAX_CALLQUEUE_LENGTH_PER_HANDLER);
      this.indexExecutor =
          new FastPathBalancedQueueRpcExecutor(
              "scbf.index.FPBQ",
              indexHandlers,
              RpcExecutor.CALL_QUEUE_TYPE_FIFO_CONF_VALUE,
              maxQueue,
              priority,
              conf,
              server);
    }

    /** The scheduler every other call goes to. */
    RpcScheduler delegate() {
      return delegate;
    }

    /** Calls dispatched to the index pool (the scbfIndexRpcCalls metric). */
    long indexCalls() {
      return indexCalls.get();
    }

    /** The priority that sends calls to the index pool. */
    int indexPriority() {
      return indexPriority;
    }

    @Override
    public void init(Context context) {
      super.init(context);
      this.port = context.getListenerAddress().getPort();
    }

    @Override
    public void start() {
      super.start();
      indexExecutor.start(port);
    }

    @Override
    public void stop() {
      indexExecutor.stop();
      super.stop();
    }

    @Override
    public int getActiveRpcHandlerCount() {
      return super.getActiveRpcHandlerCount() + indexExecutor.getActiveHandlerCount();
    }

    @Override
    public boolean dispatch(CallRunner task) {
      var call = task.getRpcCall();
      int level =
          priority.getPriority(
              call.getHeader(), call.getParam(), call.getRequestUser().orElse(null));
      if ((level == indexPriority || level == Settings.LEGACY_INDEX_RPC_PRIORITY)
          && (writesIndexRegionsOnly(call.getParam())
              || isIndexWriteEndpointCall(call.getParam(), call.getRequestUser().orElse(null)))) {
        indexCalls.incrementAndGet();
        return indexExecutor.dispatch(task);
      }
      return delegate.dispatch(task);
    }

    /**
     * An {@link IndexWriteEndpoint} call from a region server (a superuser): it only writes this
     * server's index regions, and refuses anyone else's call anyway.
     */
    private static boolean isIndexWriteEndpointCall(Message param, User user) {
      return param instanceof CoprocessorServiceRequest request
          && INDEX_WRITE_SERVICE.equals(request.getCall().getServiceName())
          && user != null
          && Superusers.isSuperUser(user);
    }

    /** Whether every region a write request names is an index region open on this server. */
    private boolean writesIndexRegionsOnly(Message param) {
      if (regionServer == null) return true;
      List<RegionSpecifier> regions = new ArrayList<>();
      if (param instanceof MultiRequest multi) {
        for (RegionAction action : multi.getRegionActionList()) regions.add(action.getRegion());
      } else if (param instanceof MutateRequest mutate) {
        regions.add(mutate.getRegion());
      }
      if (regions.isEmpty()) return false;
      for (RegionSpecifier spec : regions) {
        byte[] name = spec.getValue().toByteArray();
        String encoded =
            spec.getType() == RegionSpecifier.RegionSpecifierType.ENCODED_REGION_NAME
                ? Bytes.toString(name)
                : RegionInfo.encodeRegionName(name);
        HRegion region = regionServer.getRegion(encoded);
        if (region == null
            || region.getTableDescriptor().getValue(IndexCatalog.INDEX_SPEC_ATTR) == null) {
          return false;
        }
      }
      return true;
    }
  }
}
