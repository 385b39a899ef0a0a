package io.scbf.hbase.shared;

import java.util.Optional;
import org.apache.hadoop.hbase.ipc.RpcServer;
import org.apache.hadoop.hbase.security.AccessDeniedException;
import org.apache.hadoop.hbase.security.Superusers;
import org.apache.hadoop.hbase.security.User;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * Endpoint calls that only HBase's own servers make (routing publications, index writes). Region
 * servers call as the HBase service user, a superuser; the check holds whether or not HBase
 * authorization is enabled, because these calls change what queries answer.
 */
@InterfaceAudience.Private
public final class ServerCalls {
  private ServerCalls() {}

  /** Throws unless the current RPC's caller is an HBase superuser (no RPC: an in-process call). */
  public static void requireServer(String action) throws AccessDeniedException {
    Optional<User> caller = RpcServer.getRequestUser();
    if (caller.isPresent() && !Superusers.isSuperUser(caller.get())) {
      throw new AccessDeniedException(
          "scbf: only region servers (HBase superusers) may "
              + action
              + "; "
              + caller.get().getShortName()
              + " is not one (in production region servers run as the HBase service user, a"
              + " superuser; in an in-process mini cluster each runs as its own test user: call"
              + " Coprocessors.trustInProcessRegionServers(conf) before starting it)");
    }
  }
}
