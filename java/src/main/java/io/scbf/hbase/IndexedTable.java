package io.scbf.hbase;

import io.scbf.hbase.QueryPlan.Answer;
import io.scbf.hbase.client.IndexQueries;
import io.scbf.hbase.client.MultiColumnQueries;
import io.scbf.hbase.client.OrderedQueries;
import io.scbf.hbase.client.PointQueries;
import io.scbf.hbase.client.QueryContext;
import io.scbf.hbase.client.RangeQueries;
import io.scbf.hbase.client.RoutingReports;
import io.scbf.hbase.client.StreamedQueries;
import io.scbf.hbase.shared.proto.IndexProtos.StatsResponse;
import java.io.IOException;
import java.util.List;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * Queries a data table through its scbf indexes.
 *
 * <p>A point query asks for routing (which buckets, or for a local index which data regions, may
 * hold the value) unless it is strict, asks those in parallel (each answers from its server's hot
 * cache or a prefix scan of its index rows), and, for {@link #find}, reads the data rows and keeps
 * those whose current value still matches. A range query asks every bucket or region, but on an
 * {@code ORDERED} index only the regions holding the range. Answers follow the consistency contract
 * of docs/user-guide.md: an acknowledged write is found at once through a {@code BY_VALUE} or
 * {@code ORDERED} index or a local one (with {@code scbf.client.local.read.after.ack}, the
 * default), and through a {@code BY_ROW} index once its region has published its filter (every 0.5
 * s by default) or at once by strict queries.
 *
 * <p>A global index that is being built (see {@link IndexAdmin#rebuildIndex}) answers every lookup
 * with "building": the query then scans the data table, so its answer is complete, only slower. If
 * routing cannot be asked, the query asks every bucket or region instead (never fewer than routing
 * would have); {@link #routingFailures()} counts those queries.
 *
 * <p>Thread-safe; {@link #lastTrace()} reports the calling thread's last query.
 */
@InterfaceAudience.Public
public final class IndexedTable implements AutoCloseable {
  private final QueryContext context;
  private final PointQueries points;
  private final RangeQueries ranges;
  private final MultiColumnQueries multiColumn;
  private final StreamedQueries streams;
  private final OrderedQueries ordered;
  private final IndexQueries queries;

  public IndexedTable(Connection connection, TableName dataTable) throws IOException {
    this.context = QueryContext.open(connection, dataTable);
    this.ranges = new RangeQueries(context);
    this.points = new PointQueries(context, ranges);
    this.multiColumn = new MultiColumnQueries(context, points);
    this.streams = new StreamedQueries(context);
    this.ordered = new OrderedQueries(context);
    this.queries = new IndexQueries(context, points, ranges, streams, ordered);
  }

  /**
   * The data rows {@code query} asks for now, each re-checked against its current value (a stale
   * index entry is never answered). A point query answers as {@link #find(String, byte[]...)}
   * (sorted by row key), a range as {@link #range(String, List, byte[], byte[])} (in no promised
   * order) or, in a value order, as {@link #streamRange(String, byte[], byte[], ValueOrder)}. With
   * a limit, only the pages the first rows need are read: a point query's or unordered range's
   * first rows of {@link #getScanner} (then sorted by row key), a value order's first rows in that
   * order.
   *
   * @throws IllegalArgumentException if the table has no such index, a value is not of its column's
   *     type, the range holds no value or cannot be made half-open ({@link IndexQuery}), or a value
   *     order is asked of a point query, of a range after equal values, or of an index that is not
   *     {@code ORDERED}
   */
  public List<Result> get(IndexQuery query) throws IOException {
    return context.answered(() -> queries.rows(query));
  }

  /**
   * The row keys the index holds for {@code query}, without re-check: sorted and deduplicated, or
   * in the value order asked. A limit cuts the answer; it bounds the work only in a value order
   * (the keys of {@link #entries}), since the other answers are read whole to be sorted.
   */
  public List<byte[]> rowKeys(IndexQuery query) throws IOException {
    return context.answered(() -> queries.rowKeys(query));
  }

  /**
   * The index entries for {@code query} (row, covered values, and a range's values), from the index
   * alone, without re-check: a point query's sorted by row key (a limit cuts the answer, read
   * whole), a range's in value order (ascending unless asked; a limit bounds the work).
   *
   * @throws IllegalArgumentException for a range of an index that is not {@code ORDERED}, or after
   *     equal values: only an {@code ORDERED} index reads a covered range
   */
  public List<IndexEntry> entries(IndexQuery query) throws IOException {
    return context.answered(() -> queries.entries(query));
  }

  /**
   * The rows of {@link #get}, streamed page by page ({@code scbf.client.page.rows} entries, each
   * page re-checked before the next is asked), as {@link #stream}, {@link #streamRange(byte[],
   * byte[], byte[], byte[])} and {@link #streamRange(String, byte[], byte[], ValueOrder)} stream
   * them; a limit closes the stream after that many rows. Close the scanner when done.
   */
  public ResultScanner getScanner(IndexQuery query) throws IOException {
    return context.answered(() -> queries.scanner(query));
  }

  /**
   * The plan {@link #get} would run for {@code query} now: {@link #explain(IndexQuery, Answer)}.
   */
  public QueryPlan explain(IndexQuery query) throws IOException {
    return explain(query, Answer.ROWS);
  }

  /**
   * The plan {@code query} returning {@code answer} would run now, with its estimates: a point
   * query's as {@link #explain(byte[], byte[], byte[], Answer)}, a range's as {@link #explainRange}
   * (which plans the range's rows, whatever {@code answer}).
   */
  public QueryPlan explain(IndexQuery query, Answer answer) throws IOException {
    context.checkOpen();
    return queries.explain(query, answer);
  }

  /**
   * Strict queries skip routing and ask every bucket: they see every acknowledged write at once.
   *
   * @deprecated since 0.4.0: a table-wide setting every thread shares; ask a query strict with
   *     {@link IndexQuery#withStrict}.
   */
  @Deprecated(since = "0.4.0")
  public IndexedTable setStrict(boolean strict) {
    context.checkOpen();
    context.setStrict(strict);
    return this;
  }

  /**
   * Waits until every write acknowledged before this call is in the table's {@link
   * IndexSpec.Consistency#EVENTUAL} indexes (returns at once if it has none): a writer's
   * read-your-writes. Bounded by the applier's lag; see {@link IndexAdmin#awaitIndexed}.
   *
   * @return false if {@code timeoutMs} passed first
   */
  public boolean awaitIndexed(long timeoutMs) throws IOException {
    context.checkOpen();
    return context.awaitIndexed(timeoutMs);
  }

  public List<IndexSpec> indexes() {
    context.checkOpen();
    return context.indexes();
  }

  /** What the calling thread's last query did, or null before its first query. */
  public QueryTrace lastTrace() {
    context.checkOpen();
    return context.lastTrace();
  }

  /** Queries of this table whose routing call failed (they asked every bucket). */
  public long routingFailures() {
    context.checkOpen();
    return context.routingFailures();
  }

  /**
   * Row keys the index holds for {@code family:qualifier = value}, sorted, without re-check.
   *
   * @deprecated since 0.4.0: {@link #rowKeys(IndexQuery)} with {@code IndexQuery.onColumn(family,
   *     qualifier).withValue(value)}.
   */
  @Deprecated(since = "0.4.0")
  public List<byte[]> findRowKeys(byte[] family, byte[] qualifier, byte[] value)
      throws IOException {
    return context.answered(() -> points.rowKeys(family, qualifier, value));
  }

  /**
   * The data rows with {@code family:qualifier = value} now (index answers re-checked).
   *
   * @deprecated since 0.4.0: {@link #get(IndexQuery)} with {@code IndexQuery.onColumn(family,
   *     qualifier).withValue(value)}.
   */
  @Deprecated(since = "0.4.0")
  public List<Result> find(byte[] family, byte[] qualifier, byte[] value) throws IOException {
    return context.answered(() -> points.rows(family, qualifier, value));
  }

  /**
   * The data rows with {@code family:qualifier = value} now, as {@link #find} answers them, but
   * streamed: the index is read page by page ({@code scbf.client.page.rows} entries, each page
   * re-checked before the next is asked), so the client holds one page whatever the answer's size.
   * Rows come in row-key order for a local index and a scan plan, bucket by bucket (row-key order
   * within each) for a global index. Close the scanner when done (try-with-resources); a stream
   * whose global index starts a rebuild after its first page fails with an IOException (run it
   * again: it then scans).
   *
   * @deprecated since 0.4.0: {@link #getScanner(IndexQuery)} with {@code
   *     IndexQuery.onColumn(family, qualifier).withValue(value)}.
   */
  @Deprecated(since = "0.4.0")
  public ResultScanner stream(byte[] family, byte[] qualifier, byte[] value) throws IOException {
    return context.answered(() -> streams.point(family, qualifier, value));
  }

  /**
   * At most {@code limit} of the rows {@link #find} would answer (the first ones of {@link
   * #stream}), sorted by row key; reads only the pages they need.
   *
   * @deprecated since 0.4.0: {@link #get(IndexQuery)} with {@code IndexQuery.onColumn(family,
   *     qualifier).withValue(value).withLimit(limit)}.
   */
  @Deprecated(since = "0.4.0")
  public List<Result> find(byte[] family, byte[] qualifier, byte[] value, int limit)
      throws IOException {
    return context.answered(() -> streams.first(family, qualifier, value, limit));
  }

  /**
   * The data rows with {@code lo <= family:qualifier < hi} now (null = unbounded), as {@link
   * #range} answers them, but streamed, page by page ({@code scbf.client.page.rows} rows, each page
   * re-checked before the next is asked), so the client holds one page whatever the answer's size:
   * a global index bucket by bucket, a local index region by region (in value order within each). A
   * global index that is building answers as {@link #range} does, as one page. Close the scanner
   * when done.
   *
   * @deprecated since 0.4.0: {@link #getScanner(IndexQuery)} with {@code
   *     IndexQuery.onColumn(family, qualifier).withLower(lo, true).withUpper(hi, false)}.
   */
  @Deprecated(since = "0.4.0")
  public ResultScanner streamRange(byte[] family, byte[] qualifier, byte[] lo, byte[] hi)
      throws IOException {
    return context.answered(() -> streams.range(family, qualifier, lo, hi));
  }

  /**
   * The rows {@link #range(String, List, byte[], byte[])} answers, streamed as {@link
   * #streamRange(byte[], byte[], byte[], byte[])} streams them.
   *
   * @deprecated since 0.4.0: {@link #getScanner(IndexQuery)} with {@code
   *     IndexQuery.onIndex(index).withValues(equal.toArray(new byte[0][])).withLower(lo,
   *     true).withUpper(hi, false)}.
   */
  @Deprecated(since = "0.4.0")
  public ResultScanner streamRange(String index, List<byte[]> equal, byte[] lo, byte[] hi)
      throws IOException {
    return context.answered(() -> streams.range(index, equal, lo, hi));
  }

  /**
   * Index entries (row and covered values) for {@code family:qualifier = value}, without re-check.
   *
   * @deprecated since 0.4.0: {@link #entries(IndexQuery)} with {@code IndexQuery.onColumn(family,
   *     qualifier).withValue(value)}.
   */
  @Deprecated(since = "0.4.0")
  public List<IndexEntry> findEntries(byte[] family, byte[] qualifier, byte[] value)
      throws IOException {
    return context.answered(() -> points.entries(family, qualifier, value));
  }

  /**
   * The rows satisfying every condition now: an AND of equalities, INs, ranges and "present"
   * ({@link Condition}), in either index mode, re-checked against every condition. A range or
   * "present" condition is only re-checked (it can still make a partial index usable for the
   * others; {@link #range} reads an {@code ORDERED} index's range). An equality or IN is answered
   * by its column's index, else by a partial index on its column whose WHERE the conditions imply
   * ({@link IndexSpec#isImpliedBy}); a condition on a column with neither is only re-checked, and
   * with no usable index at all the table is scanned (see {@link #explain(Condition...)}). Each
   * condition's rows are estimated from its values' counts. If scanning the table costs less than
   * the most selective condition's index plan, the table is scanned with every condition tested in
   * the region servers. Otherwise the row keys of the most selective condition are intersected with
   * those of every other condition estimated at most 4 times larger, before any row is read: rows
   * are fetched only for keys in every set. Conditions without an estimate are only re-checked
   * (when none has one, the first condition's keys are read).
   */
  public List<Result> find(Condition... conditions) throws IOException {
    return context.answered(() -> multiColumn.rows(conditions));
  }

  /**
   * The plan {@link #find(Condition...)} would run now, with its estimates, and its reason naming
   * the index answering each condition or why none does ("partial index 'x' not used: the query
   * does not imply its WHERE ..."). Nothing is read but the routing state.
   */
  public QueryPlan explain(Condition... conditions) {
    context.checkOpen();
    return multiColumn.explain(conditions);
  }

  /**
   * The plan {@link #find} would run for {@code family:qualifier = value} now, with its estimates
   * (nothing is read but the routing state).
   *
   * @deprecated since 0.4.0: {@link #explain(IndexQuery)}.
   */
  @Deprecated(since = "0.4.0")
  public QueryPlan explain(byte[] family, byte[] qualifier, byte[] value) {
    context.checkOpen();
    return explain(family, qualifier, value, Answer.ROWS);
  }

  /**
   * The plan a point query returning {@code answer} ({@link #find}, {@link #findRowKeys}, {@link
   * #findEntries}) would run for {@code family:qualifier = value} now, with its estimates.
   *
   * @deprecated since 0.4.0: {@link #explain(IndexQuery, Answer)}.
   */
  @Deprecated(since = "0.4.0")
  public QueryPlan explain(byte[] family, byte[] qualifier, byte[] value, Answer answer) {
    context.checkOpen();
    return points.explain(family, qualifier, value, answer);
  }

  /**
   * The data rows whose columns of the composite (or one-column) index {@code index} equal {@code
   * values} now, re-checked: one value per column, in the index's column order, is a point query,
   * planned, routed and answered as {@link #find(byte[], byte[], byte[])} answers one column; fewer
   * values (equality on the leading columns) is a range query over the rest.
   *
   * @deprecated since 0.4.0: {@link #get(IndexQuery)} with {@code
   *     IndexQuery.onIndex(index).withValues(values)}.
   */
  @Deprecated(since = "0.4.0")
  public List<Result> find(String index, byte[]... values) throws IOException {
    return context.answered(() -> points.rows(index, values));
  }

  /**
   * The data rows whose first {@code equal.size()} columns of the composite index {@code index}
   * equal {@code equal} and whose next column lies in {@code [lo, hi)} (null = unbounded) now,
   * re-checked; a range query (an {@code ORDERED} index asks the regions holding the range, other
   * layouts every bucket or region).
   *
   * @deprecated since 0.4.0: {@link #get(IndexQuery)} with {@code
   *     IndexQuery.onIndex(index).withValues(equal.toArray(new byte[0][])).withLower(lo,
   *     true).withUpper(hi, false)}.
   */
  @Deprecated(since = "0.4.0")
  public List<Result> range(String index, List<byte[]> equal, byte[] lo, byte[] hi)
      throws IOException {
    return context.answered(() -> ranges.rows(index, equal, lo, hi));
  }

  /**
   * The plan {@link #find(String, byte[]...)} would run for a point query on {@code index}.
   *
   * @deprecated since 0.4.0: {@link #explain(IndexQuery)}.
   */
  @Deprecated(since = "0.4.0")
  public QueryPlan explain(String index, byte[]... values) {
    context.checkOpen();
    return points.explain(index, values);
  }

  /**
   * Row keys the index holds with {@code lo <= value < hi} (null = unbounded), sorted,
   * deduplicated.
   *
   * @deprecated since 0.4.0: {@link #rowKeys(IndexQuery)} with {@code IndexQuery.onColumn(family,
   *     qualifier).withLower(lo, true).withUpper(hi, false)}.
   */
  @Deprecated(since = "0.4.0")
  public List<byte[]> rangeRowKeys(byte[] family, byte[] qualifier, byte[] lo, byte[] hi)
      throws IOException {
    return context.answered(() -> ranges.rowKeys(family, qualifier, lo, hi));
  }

  /**
   * The data rows with {@code lo <= family:qualifier < hi} now (null = unbounded), re-checked.
   *
   * @deprecated since 0.4.0: {@link #get(IndexQuery)} with {@code IndexQuery.onColumn(family,
   *     qualifier).withLower(lo, true).withUpper(hi, false)}.
   */
  @Deprecated(since = "0.4.0")
  public List<Result> range(byte[] family, byte[] qualifier, byte[] lo, byte[] hi)
      throws IOException {
    return context.answered(() -> ranges.rows(family, qualifier, lo, hi));
  }

  /**
   * The data rows with {@code lo <= value < hi} (null = unbounded) of the {@code ORDERED} index
   * {@code index} now, in value order (the column type's order, ties by row key; {@link
   * ValueOrder#DESCENDING} reverses both), streamed page by page and each page re-checked. Only the
   * index regions holding the range are asked, each as far as the rows read: close the scanner to
   * stop (try-with-resources). Bounds are given as the column holds values ({@code
   * Bytes.toBytes(-5L)} for a {@code LONG} column).
   *
   * @throws IllegalArgumentException if {@code index} is not {@code ORDERED}
   * @deprecated since 0.4.0: {@link #getScanner(IndexQuery)} with {@code
   *     IndexQuery.onIndex(index).withLower(lo, true).withUpper(hi, false).withOrder(order)}.
   */
  @Deprecated(since = "0.4.0")
  public ResultScanner streamRange(String index, byte[] lo, byte[] hi, ValueOrder order)
      throws IOException {
    return context.answered(() -> ordered.stream(index, lo, hi, order));
  }

  /**
   * The first {@code limit} data rows of {@link #streamRange(String, byte[], byte[], ValueOrder)}:
   * reads about {@code limit} index entries plus at most one page per region asked, not the range.
   *
   * @deprecated since 0.4.0: {@link #get(IndexQuery)} with {@code
   *     IndexQuery.onIndex(index).withLower(lo, true).withUpper(hi,
   *     false).withOrder(order).withLimit(limit)}.
   */
  @Deprecated(since = "0.4.0")
  public List<Result> range(String index, byte[] lo, byte[] hi, ValueOrder order, int limit)
      throws IOException {
    return context.answered(() -> ordered.first(index, lo, hi, order, limit));
  }

  /**
   * The first {@code limit} index entries of {@code lo <= value < hi} of the {@code ORDERED} index
   * {@code index} in value order, answered from the index alone (a covered range: no data row is
   * read): each entry's row, value and covered columns as of its last index write, as {@link
   * #findEntries} answers a point.
   *
   * @deprecated since 0.4.0: {@link #entries(IndexQuery)} with {@code
   *     IndexQuery.onIndex(index).withLower(lo, true).withUpper(hi,
   *     false).withOrder(order).withLimit(limit)}.
   */
  @Deprecated(since = "0.4.0")
  public List<IndexEntry> rangeEntries(
      String index, byte[] lo, byte[] hi, ValueOrder order, int limit) throws IOException {
    return context.answered(() -> ordered.entries(index, lo, hi, order, limit));
  }

  /**
   * The plan a range on {@code index} would run now: an {@code ORDERED} index counts the range's
   * entries in the regions holding it (up to where a scan costs less) and compares.
   *
   * @deprecated since 0.4.0: {@link #explain(IndexQuery)} with {@code
   *     IndexQuery.onIndex(index).withLower(lo, true).withUpper(hi, false)}.
   */
  @Deprecated(since = "0.4.0")
  public QueryPlan explainRange(String index, byte[] lo, byte[] hi) throws IOException {
    context.checkOpen();
    return ordered.explain(index, lo, hi);
  }

  /**
   * RPCs this table's global point lookups made to index region servers (first pages): one per
   * server holding several candidate buckets, plus one per other bucket.
   */
  public long lookupCalls() {
    context.checkOpen();
    return context.lookupCalls();
  }

  /** Stale index rows this table's queries met and sent to their regions for removal. */
  public long staleRowsSent() {
    context.checkOpen();
    return context.staleRowsSent();
  }

  /**
   * The master's routing statistics for the index on {@code family:qualifier} (filters per region
   * and per server).
   */
  public RoutingReport routingReport(byte[] family, byte[] qualifier) throws IOException {
    return RoutingReports.of(routingStats(family, qualifier));
  }

  /** The master's routing statistics for the index named {@code index}. */
  public RoutingReport routingReport(String index) throws IOException {
    return RoutingReports.of(routingStats(index));
  }

  /**
   * The master's routing statistics for one index, as an internal protobuf message.
   *
   * @deprecated since 0.3.0: the message type is internal and may change; use {@link
   *     #routingReport(byte[], byte[])}. Announced for removal in 0.4, it stays there: removing it
   *     would break code that compiles against 0.3.0. The release that removes it will say so.
   */
  @Deprecated(since = "0.3.0", forRemoval = true)
  public StatsResponse routingStats(byte[] family, byte[] qualifier) throws IOException {
    context.checkOpen();
    return context.routingStats(family, qualifier);
  }

  /**
   * The master's routing statistics for the index named {@code index}, as an internal protobuf
   * message.
   *
   * @deprecated since 0.3.0: the message type is internal and may change; use {@link
   *     #routingReport(String)}. Announced for removal in 0.4, it stays there: removing it would
   *     break code that compiles against 0.3.0. The release that removes it will say so.
   */
  @Deprecated(since = "0.3.0", forRemoval = true)
  public StatsResponse routingStats(String index) throws IOException {
    context.checkOpen();
    return context.routingStats(index);
  }

  /**
   * Calls this table's queries made to the master for routing (copy refreshes and per-query
   * routes): with the routing copy, far fewer than queries.
   */
  public long routingMasterCalls() {
    context.checkOpen();
    return context.routingMasterCalls();
  }

  @Override
  public void close() throws IOException {
    context.close();
  }
}
