package io.scbf.hbase.differential;

import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Known product defects the generator steers around ({@code -Dscbf.differential.avoid}, a comma
 * list; default all three), so the short form can pass until they are fixed. {@code
 * -Dscbf.differential.avoid=} (empty) lets the generator produce them.
 */
record Avoid(Set<String> defects) {
  /** A Put stamped at or below a delete marker of its column: HBase hides it, the index not. */
  static final String DELETE_MASKED_PUT = "delete-masked-put";

  /** A family with a TTL and MIN_VERSIONS=1: global index rows expire, HBase still shows them. */
  static final String TTL_MIN_VERSIONS = "ttl-min-versions";

  /** An index switched EVENTUAL -> STRONG -> EVENTUAL keeps a stale entry. */
  static final String CONSISTENCY_SWITCH = "consistency-switch";

  static final String ALL = DELETE_MASKED_PUT + "," + TTL_MIN_VERSIONS + "," + CONSISTENCY_SWITCH;

  static Avoid parse(String text) {
    return new Avoid(
        Arrays.stream(text.split(","))
            .map(String::trim)
            .filter(s -> !s.isEmpty())
            .collect(Collectors.toUnmodifiableSet()));
  }

  boolean deleteMaskedPut() {
    return defects.contains(DELETE_MASKED_PUT);
  }

  boolean ttlMinVersions() {
    return defects.contains(TTL_MIN_VERSIONS);
  }

  boolean consistencySwitch() {
    return defects.contains(CONSISTENCY_SWITCH);
  }

  @Override
  public String toString() {
    return defects.isEmpty() ? "nothing" : String.join(",", defects);
  }
}
