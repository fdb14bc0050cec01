// How every `tcpscope` command fails (issue 42, item 3): one line saying what is wrong
// and where, then one line pointing at the command's help; exit status 2 for a wrong
// command line, 1 for input that cannot be read. Never a stack trace (TCPSCOPE_DEBUG=1
// shows one for internal errors, bin/tcpscope.mjs).
import { escapeUnsafe } from './outsideText.mjs';

/** The command line is wrong (unknown option, missing or bad value): exit 2. */
export class UsageError extends Error {
  /** `command`: the command whose help the second line points at (none: `tcpscope help`). */
  constructor(message, command = null) {
    super(message);
    this.command = command;
  }
}

/** A capture or directory that cannot be read, or a missing build: exit 1. */
export class InputError extends Error {
  constructor(message, command = null) {
    super(message);
    this.command = command;
  }
}

/** The two lines of a failure, for `err`: the message (escaped: it may quote a file name
 * or a link, and a newline in it would forge a line) and `try: tcpscope help COMMAND`. */
export function failureLines(message, command) {
  return `tcpscope: ${escapeUnsafe(message)}\ntry: tcpscope help${command ? ` ${command}` : ''}\n`;
}

/** Writes the failure to `err` and sets the exit status (2 usage, otherwise `exitCode`). */
export function fail(err, message, command, exitCode) {
  err.write(failureLines(message, command));
  process.exitCode = exitCode;
}
