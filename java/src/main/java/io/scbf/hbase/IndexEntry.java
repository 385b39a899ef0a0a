package io.scbf.hbase;

import java.util.Map;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * One index entry: a data row key and the covered columns' values stored with it (as of the last
 * index write; not re-checked against the data row).
 */
@InterfaceAudience.Public
public record IndexEntry(byte[] row, Map<IndexSpec.Column, byte[]> covered) {}
