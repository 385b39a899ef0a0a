package io.scbf.hbase.shared;

import java.util.concurrent.ThreadFactory;
import org.apache.hadoop.hbase.util.Threads;
import org.apache.hbase.thirdparty.com.google.common.util.concurrent.ThreadFactoryBuilder;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * The thread factory of every scbf pool, client and server side: daemon threads, so that no pool
 * keeps a client JVM or a stopping region server alive, named {@code prefix-N} for thread dumps,
 * and uncaught exceptions logged through HBase's handler rather than lost on stderr.
 */
@InterfaceAudience.Private
public final class DaemonThreads {
  private DaemonThreads() {}

  /** A factory of daemon threads named {@code prefix-0}, {@code prefix-1}, ... */
  public static ThreadFactory named(String prefix) {
    return new ThreadFactoryBuilder()
        // The prefix may hold a table or index name: a '%' in it is not a format specifier.
        .setNameFormat(prefix.replace("%", "%%") + "-%d")
        .setDaemon(true)
        .setUncaughtExceptionHandler(Threads.LOGGING_EXCEPTION_HANDLER)
        .build();
  }
}
