package io.scbf.hbase.shared;

import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hbase.thirdparty.com.google.gson.JsonParseException;
import org.apache.hbase.thirdparty.com.google.gson.stream.JsonReader;
import org.apache.hbase.thirdparty.com.google.gson.stream.JsonToken;
import org.apache.yetus.audience.InterfaceAudience;

/**
 * One scalar field of a JSON document, read by the streaming parser of the Gson that HBase ships
 * relocated (hbase-shaded-gson, on every region server's and client's class path): nothing is built
 * but the answer, and neither depth nor size of a document can overflow the stack (the reader keeps
 * its nesting in an array and skips values iteratively). The whole document is read, so a malformed
 * one has no field, wherever it breaks.
 */
@InterfaceAudience.Private
public final class JsonFields {
  private static final Pattern SEGMENT = Pattern.compile("\\.([A-Za-z0-9_-]+)|\\[(\\d{1,9})\\]");

  /** Segments of a path, at most: deeper paths are refused when the index is declared. */
  private static final int MAX_SEGMENTS = 32;

  private JsonFields() {}

  /**
   * The segments of {@code path} ({@code $.a.b[2]}): names as Strings, positions as Integers.
   *
   * @throws IllegalArgumentException saying what is expected if it is not such a path
   */
  public static List<Object> parsePath(String path) {
    if (path == null || !path.startsWith("$")) {
      throw malformed(path, "it must start with $");
    }
    List<Object> out = new ArrayList<>();
    Matcher m = SEGMENT.matcher(path);
    int at = 1;
    while (at < path.length()) {
      if (!m.find(at) || m.start() != at) {
        throw malformed(path, "at character " + at + " expected .name or [index]");
      }
      out.add(m.group(1) != null ? m.group(1) : (Object) Integer.parseInt(m.group(2)));
      at = m.end();
    }
    if (out.isEmpty()) throw malformed(path, "it names no field");
    if (out.size() > MAX_SEGMENTS) throw malformed(path, "more than " + MAX_SEGMENTS + " levels");
    return out;
  }

  private static IllegalArgumentException malformed(String path, String why) {
    return new IllegalArgumentException(
        "malformed JSON path '"
            + path
            + "' ("
            + why
            + "; names are letters, digits, _ and -, e.g. $.user.email or $.tags[0])");
  }

  /**
   * The scalar at {@code segments} of {@code document} as text (a string's value, a number as
   * written, {@code true}/{@code false}); null if the document is not well-formed JSON, lacks the
   * path, or holds an object, array or null there.
   */
  public static String scalar(String document, List<Object> segments) {
    try (JsonReader r = new JsonReader(new StringReader(document))) {
      Deque<Boolean> open = new ArrayDeque<>(); // true: an object
      String found = descend(r, segments, open);
      while (!open.isEmpty()) {
        boolean object = open.pop();
        while (r.hasNext()) {
          if (object) r.nextName();
          r.skipValue();
        }
        if (object) {
          r.endObject();
        } else {
          r.endArray();
        }
      }
      return r.peek() == JsonToken.END_DOCUMENT ? found : null;
    } catch (IOException | IllegalStateException | JsonParseException | NumberFormatException e) {
      return null; // malformed: the row is not indexed
    }
  }

  /**
   * Reads down the path, pushing each container entered; returns the scalar, or null with the
   * reader after a complete value of the innermost container entered.
   */
  private static String descend(JsonReader r, List<Object> segments, Deque<Boolean> open)
      throws IOException {
    for (Object segment : segments) {
      JsonToken t = r.peek();
      if (segment instanceof String name) {
        if (t != JsonToken.BEGIN_OBJECT) {
          r.skipValue();
          return null;
        }
        r.beginObject();
        open.push(true);
        boolean hit = false;
        while (!hit && r.hasNext()) {
          if (r.nextName().equals(name)) {
            hit = true; // the first of duplicate names, as most parsers keep
          } else {
            r.skipValue();
          }
        }
        if (!hit) return null;
      } else {
        if (t != JsonToken.BEGIN_ARRAY) {
          r.skipValue();
          return null;
        }
        r.beginArray();
        open.push(false);
        for (int i = 0; i < (Integer) segment && r.hasNext(); i++) r.skipValue();
        if (!r.hasNext()) return null;
      }
    }
    switch (r.peek()) {
      case STRING:
      case NUMBER:
        return r.nextString();
      case BOOLEAN:
        return String.valueOf(r.nextBoolean());
      default:
        r.skipValue();
        return null;
    }
  }
}
