package io.scbf.hbase.cli;

/**
 * A command line the CLI cannot run: exit status {@link ScbfAdmin#USAGE}, with the command's help.
 */
final class UsageException extends Exception {
  UsageException(String message) {
    super(message);
  }
}
