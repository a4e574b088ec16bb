// A command line as a person reads it: words that need no quoting as they are, others in
// JSON quotes (spaces, quotes and shell characters visible as such). For what mcpmux shows
// before something runs: the person's form, import's summary.

/** `words` (a program and its arguments) as one line. */
export function commandLineText(words: readonly string[]): string {
  return words.map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : JSON.stringify(word))).join(' ');
}
