package io.scbf.hbase.shared;

import com.google.protobuf.ServiceException;
import io.scbf.hbase.shared.proto.IndexProtos.EventualMasterService;
import io.scbf.hbase.shared.proto.IndexProtos.EventualServerService;
import io.scbf.hbase.shared.proto.IndexProtos.PendingQueuesRequest;
import io.scbf.hbase.shared.proto.IndexProtos.WalMark;
import io.scbf.hbase.shared.proto.IndexProtos.WalMarksRequest;
import io.scbf.hbase.shared.proto.IndexProtos.WalsShippedRequest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.exceptions.UnknownProtocolException;
import org.apache.hadoop.hbase.security.AccessDeniedException;
import org.apache.yetus.audience.InterfaceAudience;

/** {@link EventualCalls} asked with the connection's own identity. */
@InterfaceAudience.Private
public final class DirectEventualCalls implements EventualCalls {
  private final Connection connection;

  public DirectEventualCalls(Connection connection) {
    this.connection = connection;
  }

  @Override
  public boolean ships(TableName table) throws IOException {
    try (Admin admin = connection.getAdmin()) {
      return EventualPeer.ships(admin, table);
    }
  }

  @Override
  public List<ServerName> servers() throws IOException {
    try (Admin admin = connection.getAdmin()) {
      return new ArrayList<>(admin.getRegionServers());
    }
  }

  @Override
  public List<WalMark> marks(ServerName server) throws IOException {
    try (Admin admin = connection.getAdmin()) {
      return EventualServerService.newBlockingStub(admin.coprocessorService(server))
          .marks(null, WalMarksRequest.getDefaultInstance())
          .getMarksList();
    } catch (ServiceException e) {
      rethrowDenied(e);
      // A server of 0.3.0: its moved regions' edits are applied within the lag, not awaited.
      return unknownService(e) ? List.of() : null;
    }
  }

  @Override
  public boolean shipped(ServerName server, List<WalMark> marks) throws IOException {
    if (marks.isEmpty()) return true;
    try (Admin admin = connection.getAdmin()) {
      return EventualServerService.newBlockingStub(admin.coprocessorService(server))
          .shipped(null, WalsShippedRequest.newBuilder().addAllMarks(marks).build())
          .getShipped();
    } catch (ServiceException e) {
      rethrowDenied(e);
      return false; // asked again until it answers or leaves
    }
  }

  @Override
  public List<String> pendingQueues() throws IOException {
    try (Admin admin = connection.getAdmin()) {
      return EventualMasterService.newBlockingStub(admin.coprocessorService())
          .pendingQueues(null, PendingQueuesRequest.getDefaultInstance())
          .getQueuesList();
    } catch (ServiceException e) {
      rethrowDenied(e);
      throw new IOException("scbf: asking the master for the EVENTUAL queues failed", e);
    }
  }

  /** A refusal is an answer, not a server that failed to answer: the caller may relay instead. */
  private static void rethrowDenied(ServiceException e) throws AccessDeniedException {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof AccessDeniedException denied) throw denied;
    }
  }

  private static boolean unknownService(ServiceException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      // Unwrapped to its class, or still named in a remote exception's text.
      if (t instanceof UnknownProtocolException
          || String.valueOf(t.getMessage()).contains(UnknownProtocolException.class.getName())) {
        return true;
      }
    }
    return false;
  }
}
