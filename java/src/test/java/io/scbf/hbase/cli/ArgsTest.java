package io.scbf.hbase.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.scbf.hbase.IndexSpec;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class ArgsTest {
  static final List<String> FLAGS = List.of("--ordered", "--local");
  static final List<String> OPTIONS = List.of("--then", "--covered", "--limit");

  static Args parse(String... args) throws UsageException {
    return Args.parse(List.of(args), FLAGS, OPTIONS);
  }

  @Test
  void wordsFlagsAndRepeatedOptionsInTheirOrder() throws UsageException {
    Args a =
        parse("t", "--then", "d:b", "d:a", "--ordered", "--covered", "d:p", "--then", "d:c", "-5");
    assertEquals(List.of("t", "d:a", "-5"), a.words("TABLE", "COLUMN", "VALUE"));
    assertTrue(a.flag("--ordered"));
    assertFalse(a.flag("--local"));
    assertEquals(
        List.of("--then d:b", "--covered d:p", "--then d:c"),
        a.options().stream().map(o -> o[0] + " " + o[1]).toList());
    assertEquals("d:c", a.option("--then", null), "the last of a repeated option");
    assertEquals(7, parse("--limit", "7").intOption("--limit", 1));
  }

  @Test
  void aDashedWordFollowsTheEndOfOptions() throws UsageException {
    assertEquals(List.of("t", "-x"), parse("t", "--", "-x").words("TABLE", "VALUE"));
    assertEquals(List.of("-1.5", "-Infinity"), parse("-1.5", "-Infinity").words("LO", "HI"));
  }

  @Test
  void badCommandLinesSayWhatIsWrong() {
    assertEquals("unknown option --orderd", message("t", "--orderd"));
    assertEquals("unknown option --lim", message("t", "--lim", "3"), "no prefix matching");
    assertEquals("--then needs a value", message("t", "--then"));
    assertEquals("--then needs a value", message("t", "--then", "--ordered"));
    assertEquals("--limit needs a positive integer, got '0'", message2());
    assertEquals("expected TABLE COLUMN, got 1 argument(s)", message3());
  }

  private static String message(String... args) {
    return assertThrows(UsageException.class, () -> parse(args)).getMessage();
  }

  private static String message2() {
    return assertThrows(UsageException.class, () -> parse("--limit", "0").intOption("--limit", 1))
        .getMessage();
  }

  private static String message3() {
    return assertThrows(UsageException.class, () -> parse("t").words("TABLE", "COLUMN"))
        .getMessage();
  }

  @Test
  void whereConditionsOfEachKind() throws UsageException {
    assertEquals("d:st = A", WhereCondition.parse("d:st=A").toString());
    assertEquals("d:st IN [A, B,C]", WhereCondition.parse("d:st=B\\x2CC,A").toString());
    assertEquals("d:st = not present", WhereCondition.parse("d:st=not present").toString());
    assertEquals("d:bal:int >= -5, < 10", WhereCondition.parse("d:bal:int>=-5,<10").toString());
    assertEquals("d:bal:int >= -5, < 10", WhereCondition.parse("d:bal:int >= -5, < 10").toString());
    assertEquals("d:bal:int > -1, <= 3", WhereCondition.parse("d:bal:int<=3,>-1").toString());
    assertEquals("d:name > b", WhereCondition.parse("d:name>b").toString());
    assertEquals("d:name <= \\x00", WhereCondition.parse("d:name<=\\x00").toString());
    assertEquals("d:flag present", WhereCondition.parse("d:flag present").toString());
    for (String bad :
        List.of(
            "d:st", // no operator
            "d:bal:int>=x", // not an int
            "d:bal:int>=5,<1", // empty
            "d:bal:int>=1,>=2", // two lower bounds
            "d:bal:int>=1,<5,<6", // three bounds
            "d:bal:int>=1,5", // a bound without its operator
            "present")) { // no column
      UsageException e = assertThrows(UsageException.class, () -> WhereCondition.parse(bad));
      assertFalse(e.getMessage().isEmpty(), bad);
    }
  }

  static IndexSpec create(String column, String... options) throws UsageException {
    Command create =
        IndexCommands.all().stream().filter(c -> c.name().equals("create")).findAny().orElseThrow();
    return Args.spec(column, Args.parse(List.of(options), create.flags(), create.options()));
  }

  /** Issue 51: the help says --alias defaults to the qualifier; it used to be required. */
  @Test
  void theAliasDefaultsToTheQualifier() throws UsageException {
    assertEquals("balance", create("d:balance", "--type", "long").alias());
    assertEquals("balance", create("d:balance:long").alias());
    assertEquals("bal", create("d:balance", "--alias", "bal").alias());
    assertEquals("e_mail", create("d:e-mail").alias(), "sanitized to [A-Za-z0-9_]");
    assertEquals("first_name", create("d:first name").alias());
    for (String column : List.of("d:-", "d:" + "q".repeat(33))) {
      String m = assertThrows(UsageException.class, () -> create(column)).getMessage();
      assertTrue(m.contains("--alias"), m);
    }
  }

  /** Issue 51: the help said "(default 1)" where a global index got 16 buckets. */
  @Test
  void theBucketsHelpStatesTheDefaultsTheSpecGets() throws UsageException {
    Matcher m =
        Pattern.compile("--buckets N .*\\(default (\\d+); (\\d+) for --ordered")
            .matcher(IndexCommands.CREATE_OPTIONS);
    assertTrue(m.find(), IndexCommands.CREATE_OPTIONS);
    assertEquals(Integer.parseInt(m.group(1)), create("d:x").buckets());
    assertEquals(Integer.parseInt(m.group(1)), create("d:x", "--by-row").buckets());
    assertEquals(Integer.parseInt(m.group(2)), create("d:x", "--ordered").buckets());
  }

  /** Issue 51: --desc and --entries were ignored (or failed late) on an index not ORDERED. */
  @Test
  void valueOrderAndEntriesAreRefusedOnAnIndexNotOrdered() throws UsageException {
    Command range =
        QueryCommands.all().stream().filter(c -> c.name().equals("range")).findAny().orElseThrow();
    IndexSpec byValue = create("d:city");
    IndexSpec ordered = create("d:bal", "--type", "long", "--ordered");
    for (String flag : List.of("--desc", "--entries")) {
      Args a = Args.parse(List.of("t", "city", "a", "b", flag), range.flags(), range.options());
      String m =
          assertThrows(UsageException.class, () -> QueryCommands.checkRange(byValue, a))
              .getMessage();
      assertTrue(m.contains(flag) && m.contains("ORDERED") && m.contains("'city'"), m);
      QueryCommands.checkRange(ordered, a);
    }
    QueryCommands.checkRange(
        byValue,
        Args.parse(List.of("t", "city", "a", "b", "--limit", "5"), range.flags(), range.options()));
  }
}
