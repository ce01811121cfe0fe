// Text read from a file and shown on a terminal. A record, a log or a HAR file is written by
// whoever produced it; its strings must not move the cursor, recolour or retitle the terminal of
// the person reading the answer.

/**
 * Text a terminal shows as written: control characters (ESC, CR, BEL, ... from member names a
 * client chose) become their visible pictures (␛, ␍, ␇), so the text cannot move the cursor,
 * recolour or retitle the terminal.
 */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x20 ? String.fromCharCode(0x2400 + code) : code === 0x7f ? '\u2421' : '\ufffd';
  });
}

/** Lines of text made printable one by one: the line breaks between them stay line breaks. */
export function printableLines(text: string): string {
  return text.split('\n').map(printable).join('\n');
}
