// Characters a person does not see and a model reads: zero-width and invisible operators,
// bidirectional controls (text shown in another order than it is read), Unicode tag
// characters (an ASCII copy of a text, invisible: the classic way to hide an instruction),
// private-use code points and the supplementary variation selectors. Each run is reported
// written out (\u{200B}…) with a few visible characters around it. A BOM at the very start
// and U+FE0F after an emoji are how honest text uses two of these, and pass.

/** One pattern of every hidden class; `u` so that astral ranges are code points. */
const HIDDEN =
  /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\u061C\u00AD\u034F\u180E\uFEFF]|[\u{E0000}-\u{E007F}]|[\uE000-\uF8FF]|[\u{F0000}-\u{FFFFD}]|[\u{100000}-\u{10FFFD}]|[\u{E0100}-\u{E01EF}]/u;

/** Each run of hidden characters (up to three): where it starts, and as a person can read it. */
export function hiddenCharacters(text: string): { index: number; text: string }[] {
  if (!HIDDEN.test(text)) return [];
  const runs: { index: number; text: string }[] = [];
  const all = new RegExp(`(?:${HIDDEN.source})+`, 'gu');
  for (const match of text.matchAll(all)) {
    // A BOM that opens a text (the first, or one after the NUL line that parts an item's texts).
    if ((match.index === 0 || text.startsWith('\0\n', match.index - 2)) && match[0] === '\uFEFF') continue;
    const before = [...text.slice(Math.max(0, match.index - 12), match.index)].join('');
    const after = text.slice(match.index + match[0].length, match.index + match[0].length + 12);
    const shown = `${before}${written(match[0])}${after}`.replace(/\0/g, '').replace(/\s+/g, ' ');
    runs.push({ index: match.index, text: shown.trim() });
    if (runs.length >= 3) break;
  }
  return runs;
}

/** A run of hidden characters as a person can read it; tag characters also as the ASCII they hide. */
function written(run: string): string {
  const points = [...run].map((c) => c.codePointAt(0)!);
  const tags = points.filter((p) => p >= 0xe0020 && p <= 0xe007e);
  const shown = points
    .slice(0, 8)
    .map((p) => `\\u{${p.toString(16).toUpperCase()}}`)
    .join('');
  const more = points.length > 8 ? `…(${points.length})` : '';
  const hides =
    tags.length >= 4
      ? ` [hides "${String.fromCodePoint(...tags.map((p) => p - 0xe0000)).slice(0, 80)}"]`
      : '';
  return `${shown}${more}${hides}`;
}

/** The characters of HIDDEN that show nothing at all: taken out, "ig\u200Bnore" reads "ignore". */
const INVISIBLE = /[\u200B-\u200F\u2060-\u2064\uFEFF\u00AD\u034F\u180E]|[\u{E0000}-\u{E007F}]/gu;

/** The text as a reader sees it, for the patterns that look for words. */
export function withoutInvisible(text: string): string {
  return text.replace(INVISIBLE, '');
}

/** The text with every run of hidden characters written out, for a person to read what the model would. */
export function readable(text: string): string {
  return text.replace(new RegExp(`(?:${HIDDEN.source})+`, 'gu'), written);
}
