package io.scbf.hbase.differential;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * One step of a sequence. Each prints as a call of the static factories below, so a shrunk sequence
 * pastes into a test ({@code import static io.scbf.hbase.differential.Op.*}). Timestamps are
 * offsets from the sequence's clock (the wall clock when the run starts): null is the server's
 * timestamp, negative offsets are in the past, {@link #FUTURE} and above in the future; so "past",
 * "server" and "future" keep their order however long a run takes. Columns are {@code "f:q"},
 * values {@link Values} tokens.
 */
sealed interface Op {
  long FUTURE = 3_600_000L;

  /** Writes a client sends; events are everything else. */
  sealed interface Write extends Op {
    String row();
  }

  /**
   * Writes the product refuses on an indexed or covered column (user guide, "How an index is kept":
   * writes).
   */
  sealed interface Refusable extends Write {
    String column();
  }

  record Put(String row, Long ts, List<String> cells) implements Write {
    @Override
    public String toString() {
      return "put(" + q(row) + ", " + stamp(ts) + ", " + quoted(cells) + ")";
    }
  }

  record DeleteRow(String row, Long ts) implements Write {
    @Override
    public String toString() {
      return "deleteRow(" + q(row) + ", " + stamp(ts) + ")";
    }
  }

  record DeleteFamily(String row, String family, Long ts) implements Write {
    @Override
    public String toString() {
      return "deleteFamily(" + q(row) + ", " + q(family) + ", " + stamp(ts) + ")";
    }
  }

  /** Delete.addColumns: every version of a column. */
  record DeleteColumns(String row, String column, Long ts) implements Write {
    @Override
    public String toString() {
      return "deleteColumns(" + q(row) + ", " + q(column) + ", " + stamp(ts) + ")";
    }
  }

  /** Delete.addColumn: one version (refused on a watched column). */
  record DeleteVersion(String row, String column, Long ts) implements Refusable {
    @Override
    public String toString() {
      return "deleteVersion(" + q(row) + ", " + q(column) + ", " + stamp(ts) + ")";
    }
  }

  /** Delete.addFamilyVersion (refused on a family holding a watched column). */
  record DeleteFamilyVersion(String row, String column, long ts) implements Refusable {
    @Override
    public String toString() {
      return "deleteFamilyVersion(" + q(row) + ", " + q(column) + ", " + ts + "L)";
    }
  }

  record Increment(String row, String column) implements Refusable {
    @Override
    public String toString() {
      return "increment(" + q(row) + ", " + q(column) + ")";
    }
  }

  record Append(String row, String column, String value) implements Refusable {
    @Override
    public String toString() {
      return "append(" + q(row) + ", " + q(column) + ", " + q(value) + ")";
    }
  }

  record PutWithTtl(String row, String column, String value) implements Refusable {
    @Override
    public String toString() {
      return "putWithTtl(" + q(row) + ", " + q(column) + ", " + q(value) + ")";
    }
  }

  record PutWithVisibility(String row, String column, String value) implements Refusable {
    @Override
    public String toString() {
      return "putWithVisibility(" + q(row) + ", " + q(column) + ", " + q(value) + ")";
    }
  }

  /** Table.batch of puts and deletes (rows may repeat). */
  record Batch(List<Write> writes) implements Write {
    @Override
    public String row() {
      return writes.get(0).row();
    }

    @Override
    public String toString() {
      return "batch(" + joined(writes) + ")";
    }
  }

  /** RowMutations: puts and deletes of one row, applied atomically. */
  record Mutations(String row, List<Write> writes) implements Write {
    @Override
    public String toString() {
      return "mutations(" + q(row) + ", " + joined(writes) + ")";
    }
  }

  /**
   * checkAndMutate: {@code then} applies if {@code column} equals {@code expected} (null: absent).
   */
  record CheckAndPut(String row, String column, String expected, Put then) implements Write {
    @Override
    public String toString() {
      return "checkAndPut(" + q(row) + ", " + q(column) + ", " + q(expected) + ", " + then + ")";
    }
  }

  /**
   * Writes sent at once, each from its own thread (so that they meet in the region's row locks and
   * mini-batches in an order no one chooses); HBase's state after all of them is the oracle.
   */
  record Concurrent(List<Write> writes) implements Op {
    @Override
    public String toString() {
      return "concurrent(" + joined(writes) + ")";
    }
  }

  /** Every region server's WAL rolled (EVENTUAL indexes ship from the rolled files). */
  record RollWal() implements Op {
    @Override
    public String toString() {
      return "rollWal()";
    }
  }

  /** The first two adjacent regions of the data table (alias null) or of an index table merged. */
  record Merge(String alias) implements Op {
    @Override
    public String toString() {
      return "merge(" + q(alias) + ")";
    }
  }

  record Flush() implements Op {
    @Override
    public String toString() {
      return "flush()";
    }
  }

  record MajorCompact() implements Op {
    @Override
    public String toString() {
      return "majorCompact()";
    }
  }

  record SplitData(String row) implements Op {
    @Override
    public String toString() {
      return "splitData(" + q(row) + ")";
    }
  }

  record SplitIndex(String alias) implements Op {
    @Override
    public String toString() {
      return "splitIndex(" + q(alias) + ")";
    }
  }

  /**
   * Moves the data table's regions, and those of a global index (null: none), to the other server.
   */
  record Move(String alias) implements Op {
    @Override
    public String toString() {
      return "move(" + q(alias) + ")";
    }
  }

  record SetConsistency(String alias, boolean eventual) implements Op {
    @Override
    public String toString() {
      return "setConsistency(" + q(alias) + ", " + eventual + ")";
    }
  }

  record RecreateIndex(String alias) implements Op {
    @Override
    public String toString() {
      return "recreateIndex(" + q(alias) + ")";
    }
  }

  record Rebuild(String alias) implements Op {
    @Override
    public String toString() {
      return "rebuild(" + q(alias) + ")";
    }
  }

  record Repair(String alias) implements Op {
    @Override
    public String toString() {
      return "repair(" + q(alias) + ")";
    }
  }

  record DisableEnable() implements Op {
    @Override
    public String toString() {
      return "disableEnable()";
    }
  }

  record Truncate() implements Op {
    @Override
    public String toString() {
      return "truncate()";
    }
  }

  /**
   * A family's setting changed while indexed ({@code Admin.modifyTable}): {@code VERSIONS}, {@code
   * TTL} (seconds, 0 = FOREVER), {@code MIN_VERSIONS}, {@code KEEP_DELETED_CELLS} or {@code
   * NEW_VERSION_BEHAVIOR} (0 or 1).
   */
  record AlterFamily(String family, String setting, int value) implements Op {
    @Override
    public String toString() {
      return "alterFamily(" + q(family) + ", " + q(setting) + ", " + value + ")";
    }
  }

  record Sleep(long ms) implements Op {
    @Override
    public String toString() {
      return "sleep(" + ms + ")";
    }
  }

  static Put put(String row, Long ts, String... columnsAndValues) {
    return new Put(row, ts, List.of(columnsAndValues));
  }

  static DeleteRow deleteRow(String row, Long ts) {
    return new DeleteRow(row, ts);
  }

  static DeleteFamily deleteFamily(String row, String family, Long ts) {
    return new DeleteFamily(row, family, ts);
  }

  static DeleteColumns deleteColumns(String row, String column, Long ts) {
    return new DeleteColumns(row, column, ts);
  }

  static DeleteVersion deleteVersion(String row, String column, Long ts) {
    return new DeleteVersion(row, column, ts);
  }

  static DeleteFamilyVersion deleteFamilyVersion(String row, String column, long ts) {
    return new DeleteFamilyVersion(row, column, ts);
  }

  static Increment increment(String row, String column) {
    return new Increment(row, column);
  }

  static Append append(String row, String column, String value) {
    return new Append(row, column, value);
  }

  static PutWithTtl putWithTtl(String row, String column, String value) {
    return new PutWithTtl(row, column, value);
  }

  static PutWithVisibility putWithVisibility(String row, String column, String value) {
    return new PutWithVisibility(row, column, value);
  }

  static Batch batch(Write... writes) {
    return new Batch(List.of(writes));
  }

  static Mutations mutations(String row, Write... writes) {
    return new Mutations(row, List.of(writes));
  }

  static CheckAndPut checkAndPut(String row, String column, String expected, Put then) {
    return new CheckAndPut(row, column, expected, then);
  }

  static Concurrent concurrent(Write... writes) {
    return new Concurrent(List.of(writes));
  }

  static RollWal rollWal() {
    return new RollWal();
  }

  static Merge merge(String alias) {
    return new Merge(alias);
  }

  static Flush flush() {
    return new Flush();
  }

  static MajorCompact majorCompact() {
    return new MajorCompact();
  }

  static SplitData splitData(String row) {
    return new SplitData(row);
  }

  static SplitIndex splitIndex(String alias) {
    return new SplitIndex(alias);
  }

  static Move move(String alias) {
    return new Move(alias);
  }

  static SetConsistency setConsistency(String alias, boolean eventual) {
    return new SetConsistency(alias, eventual);
  }

  static RecreateIndex recreateIndex(String alias) {
    return new RecreateIndex(alias);
  }

  static Rebuild rebuild(String alias) {
    return new Rebuild(alias);
  }

  static Repair repair(String alias) {
    return new Repair(alias);
  }

  static DisableEnable disableEnable() {
    return new DisableEnable();
  }

  static Truncate truncate() {
    return new Truncate();
  }

  static AlterFamily alterFamily(String family, String setting, int value) {
    return new AlterFamily(family, setting, value);
  }

  static Sleep sleep(long ms) {
    return new Sleep(ms);
  }

  /** The name the summary counts this op under. */
  default String kind() {
    return getClass().getSimpleName();
  }

  private static String q(String s) {
    return s == null ? "null" : '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
  }

  private static String stamp(Long ts) {
    return ts == null ? "null" : ts + "L";
  }

  private static String quoted(List<String> items) {
    return items.stream().map(Op::q).collect(Collectors.joining(", "));
  }

  private static String joined(List<? extends Op> ops) {
    return ops.stream().map(Op::toString).collect(Collectors.joining(", "));
  }

  static String render(List<? extends Op> ops) {
    return ops.stream().map(o -> "    " + o + ",").collect(Collectors.joining("\n"));
  }

  static List<String> columnsOf(Put p) {
    return Arrays.asList(
        java.util.stream.IntStream.range(0, p.cells().size() / 2)
            .mapToObj(i -> p.cells().get(2 * i))
            .toArray(String[]::new));
  }
}
