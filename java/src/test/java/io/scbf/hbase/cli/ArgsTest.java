package io.scbf.hbase.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
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
}
