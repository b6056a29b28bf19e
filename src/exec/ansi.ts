// CSI sequences (colors, cursor moves), OSC sequences (titles, hyperlinks) and lone two-byte escapes.
/* eslint-disable no-control-regex -- matching escape bytes is the point */
const ANSI_PATTERN =
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]|\u009b[0-?]*[ -/]*[@-~]/g;

/** Removes terminal escape sequences so tool output is plain text. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI_PATTERN, "");
}
