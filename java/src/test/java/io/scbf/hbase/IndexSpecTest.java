package io.scbf.hbase;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.hbase.IndexSpec.ValueType;
import io.scbf.hbase.shared.IndexCatalog;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

class IndexSpecTest {
  private static final byte[] F = Bytes.toBytes("f");
  private static final byte[] Q = Bytes.toBytes("q");

  private static String failure(IndexSpec.Builder b) {
    return assertThrows(IllegalArgumentException.class, b::build).getMessage();
  }

  @Test
  void invalidSpecsFailWithClearMessages() {
    assertTrue(failure(IndexSpec.builder(null, Q).alias("a")).contains("family must be given"));
    assertTrue(
        failure(IndexSpec.builder(new byte[0], Q).alias("a")).contains("family must be given"));
    assertTrue(
        failure(IndexSpec.builder(F, null).alias("a")).contains("qualifier must not be null"));
    assertTrue(failure(IndexSpec.builder(F, Q)).contains("alias must match"));
    assertTrue(failure(IndexSpec.builder(F, Q).alias("bad alias")).contains("got 'bad alias'"));
    assertTrue(
        failure(IndexSpec.builder(F, Q).alias("a").buckets(0))
            .contains("buckets must be in [1, 256], got 0"));
    assertTrue(failure(IndexSpec.builder(F, Q).alias("a").buckets(257)).contains("got 257"));
    assertTrue(
        failure(IndexSpec.builder(F, Q).alias("a").fpp(0))
            .contains("fpp must be in [1.0E-9, 0.5]"));
    // Rates the native filter cannot honour, and first filters too big for a region server, fail
    // here, at createIndex, instead of on every server that opens a bucket.
    assertTrue(failure(IndexSpec.builder(F, Q).alias("a").fpp(5e-20)).contains("got 5.0E-20"));
    assertTrue(
        failure(IndexSpec.builder(F, Q).alias("a").initialCapacity(1L << 32))
            .contains("initialCapacity must be in [1, 2^24], got 4294967296"));
    assertTrue(
        failure(IndexSpec.builder(F, Q).alias("a").fpp(1e-9).initialCapacity(1L << 24))
            .contains("the limit is 64 MiB"));
    IndexSpec.builder(F, Q).alias("a").fpp(1e-9).initialCapacity(1L << 20).build();
    IndexSpec.builder(F, Q).alias("a").fpp(0.001).initialCapacity(1L << 22).build();
    assertTrue(failure(IndexSpec.builder(F, Q).alias("a").fpp(Double.NaN)).contains("fpp"));
    assertTrue(failure(IndexSpec.builder(F, Q).alias("a").fpp(0.7)).contains("fpp"));
    assertTrue(
        failure(IndexSpec.builder(F, Q).alias("a").initialCapacity(0)).contains("initialCapacity"));
    assertTrue(
        failure(IndexSpec.builder(F, Q).alias("a").covered(F, Q)).contains("is an indexed column"));
    assertTrue(
        failure(
                IndexSpec.builder(F, Q)
                    .alias("a")
                    .covered(F, Bytes.toBytes("c"))
                    .covered(F, Bytes.toBytes("c")))
            .contains("listed twice"));
  }

  @Test
  void specsRoundTripThroughTheirTextFormAndTheTableDescriptor() {
    IndexSpec spec =
        IndexSpec.builder(F, new byte[] {0, (byte) 0xff})
            .alias("city_1")
            .buckets(256)
            .fpp(0.0001)
            .initialCapacity(1000)
            .covered(Bytes.toBytes("g"), new byte[0])
            .build();
    assertEquals(spec, IndexSpec.decode(spec.encode()));
    IndexSpec plain = IndexSpec.builder(F, Q).alias("p").build();
    assertEquals(plain, IndexSpec.decode(plain.encode()));
    assertEquals(IndexSpec.DEFAULT_BUCKETS, plain.buckets());

    TableName t = TableName.valueOf("ns1", "t");
    TableDescriptor td =
        TableDescriptorBuilder.newBuilder(t)
            .setColumnFamily(ColumnFamilyDescriptorBuilder.of(F))
            .build();
    td = IndexCatalog.withIndex(IndexCatalog.withIndex(td, spec), plain);
    assertEquals(List.of(spec, plain), IndexCatalog.specsOf(td));
    assertEquals(List.of(spec), IndexCatalog.specsOf(IndexCatalog.withoutIndex(td, "p")));
    assertEquals(
        TableName.valueOf("ns1", "t__idx_city_1"), IndexCatalog.indexTableName(t, "city_1"));
    TableDescriptor index = IndexCatalog.indexTableDescriptor(t, spec, true);
    assertEquals(spec, IndexCatalog.specOfIndexTable(index).orElseThrow());
    assertTrue(IndexCatalog.isBuilding(index));
    assertFalse(IndexCatalog.isBuilding(IndexCatalog.withBuilding(index, false)));
    assertTrue(IndexCatalog.isOwnIndexTable(index, t));
    assertFalse(IndexCatalog.isOwnIndexTable(index, TableName.valueOf("ns1", "other")));
    assertTrue(IndexCatalog.specOfIndexTable(td).isEmpty());
  }

  @Test
  void malformedTextIsRejected() {
    assertThrows(IllegalArgumentException.class, () -> IndexSpec.decode("v2;family=66"));
    assertThrows(
        IllegalArgumentException.class, () -> IndexSpec.decode("v1;family=66;qualifier=71"));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            IndexSpec.decode(
                "v1;family=66;qualifier=71;alias=a;buckets=x;fpp=0.1;capacity=10;covered="));
  }

  @Test
  void localSpecsRoundTripAndHaveNoBuckets() {
    IndexSpec local = IndexSpec.builder(F, Q).alias("loc").local().fpp(0.01).build();
    assertTrue(local.isLocal());
    assertEquals(1, local.buckets());
    assertEquals(local, IndexSpec.decode(local.encode()));
    assertTrue(IndexSpec.decode(local.encode()).isLocal());
    IndexSpec global = IndexSpec.builder(F, Q).alias("glo").build();
    assertFalse(global.isLocal());
    assertFalse(global.encode().contains("local"), "global specs encode as before");
    assertTrue(
        failure(IndexSpec.builder(F, Q).alias("a").local().buckets(4))
            .contains("a local index has no buckets"));
    assertThrows(
        IllegalArgumentException.class,
        () -> IndexSpec.decode(global.encode().replace(";covered=", ";local=maybe;covered=")));
  }

  @Test
  void aLocalIndexWithoutItsFamilyIsInvalidEverywhere() {
    IndexSpec local = IndexSpec.builder(F, Q).alias("loc").local().build();
    TableDescriptor base =
        TableDescriptorBuilder.newBuilder(TableName.valueOf("t"))
            .setColumnFamily(ColumnFamilyDescriptorBuilder.of(F))
            .build();
    TableDescriptor with = IndexCatalog.withIndex(base, local);
    assertTrue(with.hasColumnFamily(IndexCatalog.localFamily("loc")));
    assertNull(with.getRegionSplitPolicyClassName(), "no class of the jar in the descriptor");
    assertEquals(List.of(local), IndexCatalog.readSpecs(with).valid());
    TableDescriptor familyRemoved =
        TableDescriptorBuilder.newBuilder(with)
            .removeColumnFamily(IndexCatalog.localFamily("loc"))
            .build();
    assertTrue(IndexCatalog.readSpecs(familyRemoved).valid().isEmpty());
    assertTrue(
        IndexCatalog.readSpecs(familyRemoved)
            .invalid()
            .get(IndexCatalog.DATA_ATTR_PREFIX + "loc")
            .contains("lacks its column family"));
    TableDescriptor legacy = // as written by earlier releases
        TableDescriptorBuilder.newBuilder(with)
            .setRegionSplitPolicyClassName(IndexCatalog.LOCAL_SPLIT_POLICY)
            .build();
    TableDescriptor dropped = IndexCatalog.withoutIndex(legacy, "loc");
    assertFalse(dropped.hasColumnFamily(IndexCatalog.localFamily("loc")));
    assertNull(dropped.getRegionSplitPolicyClassName(), "the legacy split policy is gone");
  }

  @Test
  void compositeSpecsRoundTripAndEncodeTheirTuple() {
    byte[] a = Bytes.toBytes("a");
    byte[] b = new byte[] {0, 'b'};
    IndexSpec composite =
        IndexSpec.builder(F, Q).thenColumn(F, a).thenColumn(F, b).alias("abc").local().build();
    assertTrue(composite.isComposite());
    assertEquals(
        List.of(new IndexSpec.Column(F, Q), new IndexSpec.Column(F, a), new IndexSpec.Column(F, b)),
        composite.columns());
    assertEquals(composite, IndexSpec.decode(composite.encode()));
    assertEquals(composite.columns(), IndexSpec.decode(composite.encode()).columns());
    assertFalse(
        IndexSpec.builder(F, Q).alias("p").build().encode().contains("then"),
        "one-column specs encode as before");
    assertEquals(composite.columns(), IndexValues.watchedColumns(composite));

    byte[] tuple =
        IndexValues.valueOf(
            composite, List.of(Bytes.toBytes("x"), new byte[0], new byte[] {0, (byte) 0xff}));
    assertEquals(
        List.of("x", "", Bytes.toStringBinary(new byte[] {0, (byte) 0xff})),
        io.scbf.hbase.shared.CompositeValue.decode(tuple).stream()
            .map(Bytes::toStringBinary)
            .toList());
    assertNull(
        IndexValues.valueOf(
            composite, c -> c.equals(new IndexSpec.Column(F, a)) ? null : Bytes.toBytes("v")),
        "a row lacking one indexed column is not indexed");
    assertThrows(
        IllegalArgumentException.class, () -> IndexValues.valueOf(composite, List.of(new byte[1])));
    IndexSpec one = IndexSpec.builder(F, Q).alias("one").build();
    assertEquals(
        "v", Bytes.toString(IndexValues.valueOf(one, List.of(Bytes.toBytes("v")))), "raw value");

    assertTrue(
        failure(IndexSpec.builder(F, Q).thenColumn(F, Q).alias("d")).contains("listed twice"));
    assertTrue(
        failure(IndexSpec.builder(F, Q).thenColumn(F, a).covered(F, a).alias("d"))
            .contains("is an indexed column"));
    IndexSpec.Builder nine = IndexSpec.builder(F, Q).alias("nine");
    for (int i = 0; i < IndexSpec.MAX_COLUMNS; i++) nine.thenColumn(F, Bytes.toBytes("c" + i));
    assertTrue(failure(nine).contains("at most 8 columns, got 9"));
    assertThrows(
        IllegalArgumentException.class,
        () -> IndexSpec.decode(composite.encode().replace(";then=", ";then=zz")));
  }

  @Test
  void aByValueSpecIsVersion2SoThatOlderJarsRefuseItInsteadOfMisplacingRows() {
    IndexSpec spec =
        IndexSpec.builder(F, Q).alias("a").layout(IndexSpec.Layout.BY_VALUE).buckets(4).build();
    assertTrue(spec.encode().startsWith("v2;"), spec.encode());
    assertTrue(spec.encode().contains(";layout=by-value"));
    assertEquals(spec, IndexSpec.decode(spec.encode()));
    assertEquals(IndexSpec.Layout.BY_VALUE, IndexSpec.decode(spec.encode()).layout());
    IndexSpec byRow = IndexSpec.builder(F, Q).alias("a").layout(IndexSpec.Layout.BY_ROW).build();
    assertTrue(byRow.encode().startsWith("v1;"));
    assertFalse(byRow.encode().contains("layout"), "a bucket spec encodes as releases before");
    assertThrows(
        IllegalArgumentException.class,
        () -> IndexSpec.decode(spec.encode().replace("v2;", "v1;")),
        "a version 1 spec naming the new layout is malformed");
    assertThrows(
        IllegalArgumentException.class,
        () -> IndexSpec.decode(spec.encode().replace("by-value", "by-moon")));
    assertTrue(
        failure(IndexSpec.builder(F, Q).alias("a").local().layout(IndexSpec.Layout.BY_VALUE))
            .contains("for global ones"));
    assertThrows(IllegalArgumentException.class, () -> IndexSpec.builder(F, Q).layout(null));
  }

  @Test
  void aGlobalIndexIsByValueUnlessToldWhileStoredSpecsKeepTheirBuckets() {
    IndexSpec global = IndexSpec.builder(F, Q).alias("a").build();
    assertEquals(IndexSpec.Layout.BY_VALUE, global.layout());
    assertEquals(
        IndexSpec.Layout.BY_ROW, IndexSpec.builder(F, Q).alias("a").local().build().layout());
    // What a table descriptor written by an earlier release holds: no layout field.
    IndexSpec stored =
        IndexSpec.decode(
            "v1;family=66;qualifier=71;alias=a;buckets=16;fpp=0.001;capacity=16384;covered=");
    assertEquals(IndexSpec.Layout.BY_ROW, stored.layout());
    assertEquals(stored, IndexSpec.decode(stored.encode()));
    IndexSpec storedLocal =
        IndexSpec.decode(
            "v1;family=66;qualifier=71;alias=a;buckets=1;fpp=0.001;capacity=16384;local=true;covered=");
    assertTrue(storedLocal.isLocal());
    assertEquals(IndexSpec.Layout.BY_ROW, storedLocal.layout());
  }

  private static final byte[] STATUS = Bytes.toBytes("status");

  @Test
  void expressionAndPartialSpecsAreVersion4AndRoundTrip() {
    IndexSpec plain = IndexSpec.builder(F, Q).alias("p").build();
    assertTrue(plain.answersByColumn());
    assertFalse(plain.encode().startsWith("v4"));
    IndexSpec expr =
        IndexSpec.builder(F, Q)
            .alias("e")
            .expression(IndexExpression.jsonPath("$.user.email").then(IndexExpression.lower()))
            .type(IndexSpec.ValueType.STRING)
            .build();
    IndexSpec partial =
        IndexSpec.builder(F, Q)
            .alias("w")
            .local()
            .where(
                Condition.in(F, STATUS, Bytes.toBytes("ACTIVE"), Bytes.toBytes("NEW")),
                Condition.eq(F, Bytes.toBytes(""), new byte[0]))
            .build();
    for (IndexSpec s : List.of(expr, partial)) {
      assertTrue(s.encode().startsWith("v4;"), s.encode());
      IndexSpec back = IndexSpec.decode(s.encode());
      assertEquals(s, back);
      assertEquals(s.expression(), back.expression());
      assertEquals(s.where().toString(), back.where().toString());
      assertFalse(back.answersByColumn());
      // An older jar accepted v1-v3 only; a v4 spec claiming an older version is refused too.
      assertThrows(
          IllegalArgumentException.class, () -> IndexSpec.decode(s.encode().replace("v4;", "v3;")));
    }
    assertTrue(
        assertThrows(
                IllegalArgumentException.class,
                () -> IndexSpec.decode(expr.encode().replace("json($.user.email)", "soundex")))
            .getMessage()
            .contains("unknown index function 'soundex'"));
    assertTrue(
        assertThrows(
                IllegalArgumentException.class,
                () -> IndexSpec.decode(expr.encode().replace("$.user.email", "$.user email")))
            .getMessage()
            .contains("malformed JSON path"));
    assertThrows(
        IllegalArgumentException.class,
        () -> IndexSpec.decode(partial.encode().replace(";where=", ";where=zz")));
  }

  @Test
  void badExpressionAndPartialSpecsFailAtBuild() {
    assertTrue(
        failure(
                IndexSpec.builder(F, Q)
                    .alias("a")
                    .thenColumn(F, STATUS)
                    .expression(IndexExpression.lower()))
            .contains("an expression index has one column"));
    assertTrue(
        failure(
                IndexSpec.builder(F, Q)
                    .alias("a")
                    .type(IndexSpec.ValueType.LONG)
                    .expression(IndexExpression.lower()))
            .contains("produces text"));
    assertTrue(
        failure(
                IndexSpec.builder(F, Q)
                    .alias("a")
                    .type(IndexSpec.ValueType.STRING)
                    .expression(IndexExpression.truncate(10)))
            .contains("produces a long"));
    IndexSpec.builder(F, Q)
        .alias("a")
        .type(IndexSpec.ValueType.LONG)
        .expression(IndexExpression.truncate(10))
        .build();
    assertTrue(
        failure(
                IndexSpec.builder(F, Q)
                    .alias("a")
                    .where(
                        Condition.eq(F, STATUS, Bytes.toBytes("A")),
                        Condition.eq(F, STATUS, Bytes.toBytes("B"))))
            .contains("twice"));
  }

  @Test
  void valueOfAppliesTheExpressionAndTheWhere() {
    IndexSpec lower =
        IndexSpec.builder(F, Q).alias("l").expression(IndexExpression.lower()).build();
    assertArrayEquals(Bytes.toBytes("ab"), IndexValues.valueOf(lower, c -> Bytes.toBytes("aB")));
    assertNull(IndexValues.valueOf(lower, c -> new byte[] {(byte) 0xff}));
    assertNull(
        IndexValues.invalidValue(lower, lower.column(), new byte[] {(byte) 0xff}), "never refused");
    IndexSpec partial =
        IndexSpec.builder(F, Q)
            .alias("w")
            .where(Condition.eq(F, STATUS, Bytes.toBytes("ACTIVE")))
            .build();
    IndexSpec.Column status = new IndexSpec.Column(F, STATUS);
    assertEquals(List.of(partial.column(), status), IndexValues.watchedColumns(partial));
    assertArrayEquals(
        Bytes.toBytes("v"),
        IndexValues.valueOf(
            partial, c -> c.equals(status) ? Bytes.toBytes("ACTIVE") : Bytes.toBytes("v")));
    assertNull(
        IndexValues.valueOf(
            partial, c -> c.equals(status) ? Bytes.toBytes("GONE") : Bytes.toBytes("v")));
    assertNull(IndexValues.valueOf(partial, c -> c.equals(status) ? null : Bytes.toBytes("v")));
  }

  /**
   * A query's IN on a column with a typed index compares as that type, so its 1.0 matches rows
   * written 1.00, which a WHERE of 1.0 (bytes) leaves out: the WHERE is implied only if it holds in
   * every type the query may compare the column in.
   */
  @Test
  void aWhereIsImpliedInEveryTypeTheQueryMayCompareIn() {
    byte[] price = Bytes.toBytes("price");
    byte[] one = Bytes.toBytes(new java.math.BigDecimal("1.0"));
    IndexSpec atOne = IndexSpec.builder(F, Q).alias("w").where(Condition.eq(F, price, one)).build();
    List<Condition> query = List.of(Condition.eq(F, price, one));
    assertTrue(IndexValues.isImpliedBy(atOne, query));
    assertTrue(IndexValues.isImpliedBy(atOne, query, c -> java.util.Set.of(ValueType.BYTES)));
    assertFalse(
        IndexValues.isImpliedBy(atOne, query, c -> java.util.Set.of(ValueType.BIG_DECIMAL)));
    assertFalse(
        IndexValues.isImpliedBy(
            atOne, query, c -> java.util.Set.of(ValueType.BYTES, ValueType.BIG_DECIMAL)));
    IndexSpec inRange =
        IndexSpec.builder(F, Q)
            .alias("r")
            .where(
                Condition.range(
                    F,
                    price,
                    Bytes.toBytes(new java.math.BigDecimal("0.5")),
                    true,
                    null,
                    false,
                    ValueType.BIG_DECIMAL))
            .build();
    assertTrue(
        IndexValues.isImpliedBy(
            inRange, query, c -> java.util.Set.of(ValueType.BYTES, ValueType.BIG_DECIMAL)));
  }

  @Test
  void aQueryImpliesAWhereIfItAllowsOnlyValuesTheWhereAllows() {
    byte[] city = Bytes.toBytes("city");
    byte[] active = Bytes.toBytes("ACTIVE");
    byte[] idle = Bytes.toBytes("IDLE");
    IndexSpec partial =
        IndexSpec.builder(F, city).alias("w").where(Condition.in(F, STATUS, active, idle)).build();
    Condition inCity = Condition.eq(F, city, Bytes.toBytes("Oslo"));
    assertTrue(IndexValues.isImpliedBy(partial, List.of(inCity, Condition.eq(F, STATUS, active))));
    assertTrue(
        IndexValues.isImpliedBy(partial, List.of(Condition.in(F, STATUS, idle, active), inCity)));
    assertFalse(IndexValues.isImpliedBy(partial, List.of(inCity)));
    assertFalse(
        IndexValues.isImpliedBy(
            partial, List.of(inCity, Condition.in(F, STATUS, active, Bytes.toBytes("X")))));
    assertFalse(IndexValues.isImpliedBy(partial, List.of(inCity, Condition.eq(F, Q, active))));
    assertTrue(IndexValues.isImpliedBy(IndexSpec.builder(F, city).alias("p").build(), List.of()));
  }

  @Test
  void rangeAndPresentWheresAreV5AndRoundTripAndBadTextFails() {
    byte[] age = Bytes.toBytes("age");
    IndexSpec s =
        IndexSpec.builder(F, Q)
            .alias("w")
            .where(
                Condition.range(
                    F, age, Bytes.toBytes(-5), true, Bytes.toBytes(65), false, ValueType.INT),
                Condition.range(F, Bytes.toBytes("b"), null, false, new byte[0], true),
                Condition.present(F, Bytes.toBytes("flag")),
                Condition.eq(F, STATUS, Bytes.toBytes("A")))
            .build();
    String text = s.encode();
    // 0.3.0 reads v4 WHEREs as INs only: it must refuse these by their version.
    assertTrue(text.startsWith("v5;"), text);
    assertThrows(
        IllegalArgumentException.class, () -> IndexSpec.decode(text.replace("v5;", "v4;")));
    for (Condition c :
        List.of(Condition.present(F, STATUS), Condition.eq(F, STATUS, new byte[0]))) {
      String one = IndexSpec.builder(F, Q).alias("w").where(c).build().encode();
      assertEquals(c.kind() == Condition.Kind.IN ? "v4" : "v5", one.substring(0, 2), one);
    }
    assertTrue(
        text.contains(
            ";where=66:616765:range:int:[fffffffb:00000041),66:62:range:bytes:*:],"
                + "66:666c6167:present,66:737461747573:41"),
        text);
    IndexSpec back = IndexSpec.decode(text);
    assertEquals(s, back);
    assertEquals(
        "[f:age:int >= -5, < 65, f:b <= , f:flag present, f:status = A]", back.where().toString());
    Map<IndexSpec.Column, byte[]> row = new HashMap<>();
    row.put(new IndexSpec.Column(F, Q), Bytes.toBytes("v"));
    row.put(new IndexSpec.Column(F, age), Bytes.toBytes(-5));
    row.put(new IndexSpec.Column(F, Bytes.toBytes("b")), new byte[0]);
    row.put(new IndexSpec.Column(F, Bytes.toBytes("flag")), new byte[0]);
    row.put(new IndexSpec.Column(F, STATUS), Bytes.toBytes("A"));
    assertArrayEquals(Bytes.toBytes("v"), IndexValues.valueOf(back, row::get));
    row.put(new IndexSpec.Column(F, age), Bytes.toBytes(65));
    assertNull(IndexValues.valueOf(back, row::get), "out of the range");
    row.put(new IndexSpec.Column(F, age), Bytes.toBytes(64));
    row.remove(new IndexSpec.Column(F, Bytes.toBytes("flag")));
    assertNull(IndexValues.valueOf(back, row::get), "flag absent");
    String range = "range:int:[fffffffb:00000041)";
    String[][] broken = {
      {range, "range:int:[fffffffb:00000041"}, // HI lacks its bracket
      {range, "range:int:fffffffb:00000041)"}, // LO lacks its bracket
      {range, "range:int:*"}, // too few parts
      {range, "range:integer:*:00000041)"}, // no such type
      {range, "range:int:[00000041:fffffffb)"}, // empty
      {range, "range:int:*:*"}, // no bound
      {range, "range:int:[41:*"}, // not an int
      {":present", ":present:00"}, // present takes no value
    };
    for (String[] b : broken) {
      assertThrows(
          IllegalArgumentException.class, () -> IndexSpec.decode(text.replace(b[0], b[1])), b[1]);
    }
  }

  @Test
  void rangeAndPresentWheresAreImpliedByNarrowerQueries() {
    byte[] city = Bytes.toBytes("city");
    byte[] age = Bytes.toBytes("age");
    IndexSpec adults =
        IndexSpec.builder(F, city)
            .alias("a")
            .where(
                Condition.range(F, age, Bytes.toBytes(18), true, null, false, ValueType.INT),
                Condition.present(F, STATUS))
            .build();
    Condition inCity = Condition.eq(F, city, Bytes.toBytes("Oslo"));
    Condition active = Condition.eq(F, STATUS, Bytes.toBytes("A"));
    assertTrue(
        IndexValues.isImpliedBy(
            adults,
            List.of(
                inCity,
                active,
                Condition.range(
                    F, age, Bytes.toBytes(30), true, Bytes.toBytes(40), true, ValueType.INT))));
    assertTrue(
        IndexValues.isImpliedBy(
            adults,
            List.of(Condition.in(F, age, Bytes.toBytes(18), Bytes.toBytes(99)), inCity, active)));
    assertFalse(
        IndexValues.isImpliedBy(
            adults,
            List.of(inCity, active, Condition.in(F, age, Bytes.toBytes(17), Bytes.toBytes(99)))));
    assertFalse(
        IndexValues.isImpliedBy(adults, List.of(inCity, Condition.eq(F, age, Bytes.toBytes(20)))),
        "nothing says status is present");
    assertTrue(
        IndexValues.isImpliedBy(
            adults,
            List.of(
                inCity,
                Condition.present(F, STATUS),
                Condition.range(F, age, Bytes.toBytes(18), true, null, false, ValueType.INT))));
  }

  @Test
  void eventualConsistencyIsAV4FieldOfGlobalIndexesOnly() {
    IndexSpec strong = IndexSpec.builder(F, Q).alias("a").build();
    assertEquals(IndexSpec.Consistency.STRONG, strong.consistency());
    assertFalse(strong.encode().contains("consistency"), strong.encode());
    assertTrue(strong.encode().startsWith("v2;"), strong.encode());

    IndexSpec eventual = strong.withConsistency(IndexSpec.Consistency.EVENTUAL);
    assertEquals(IndexSpec.Consistency.EVENTUAL, eventual.consistency());
    assertTrue(eventual.encode().startsWith("v4;"), eventual.encode());
    assertTrue(eventual.encode().endsWith(";consistency=eventual"), eventual.encode());
    assertEquals(eventual, IndexSpec.decode(eventual.encode()));
    assertEquals(strong, eventual.withConsistency(IndexSpec.Consistency.STRONG));
    assertEquals(strong, IndexCatalog.indexTableSpec(eventual));
    for (IndexSpec.Layout layout : IndexSpec.Layout.values()) {
      IndexSpec s =
          IndexSpec.builder(F, Q)
              .alias("a")
              .layout(layout)
              .consistency(IndexSpec.Consistency.EVENTUAL)
              .build();
      assertEquals(s, IndexSpec.decode(s.encode()));
    }

    assertTrue(
        failure(
                IndexSpec.builder(F, Q)
                    .alias("a")
                    .local()
                    .consistency(IndexSpec.Consistency.EVENTUAL))
            .contains("always STRONG"));
    // A v4 text must say why it is v4; a v3 jar refuses it (it knows no v4).
    assertThrows(
        IllegalArgumentException.class,
        () -> IndexSpec.decode(eventual.encode().replace(";consistency=eventual", "")));
    assertThrows(
        IllegalArgumentException.class,
        () -> IndexSpec.decode(eventual.encode().replace("=eventual", "=sometimes")));
  }
}
