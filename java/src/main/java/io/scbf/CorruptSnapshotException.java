package io.scbf;

/**
 * Thrown when bytes given to {@code fromByteArray} are not a valid snapshot: truncated, wrong magic
 * or version, checksum mismatch, or inconsistent fields. Decoding checks everything before using
 * it, so corrupt input never reaches memory unchecked.
 *
 * <p>An {@link IllegalArgumentException}, because the argument is what is wrong.
 */
public class CorruptSnapshotException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public CorruptSnapshotException(String message) {
    super(message);
  }
}
