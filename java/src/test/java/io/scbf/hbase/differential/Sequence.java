package io.scbf.hbase.differential;

import java.util.List;

/** What one seed generates: a schema and the ops to apply to a fresh table of it. */
record Sequence(long seed, Schema schema, List<Op> ops) {
  Sequence withOps(List<Op> shorter) {
    return new Sequence(seed, schema, shorter);
  }
}
