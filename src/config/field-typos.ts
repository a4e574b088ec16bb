// A config entry's field that is a slip of one mcpmux reads ("arg", "Command", "enviroment"):
// such a field would be ignored like those other clients use, and the server would start
// without its arguments or its variables, far from the cause. It is named as a problem with the
// field meant. Fields other clients use that look like one of ours (VS Code's "dev", Cursor's
// "auth") are theirs, and stay ignored.

/** Fields of other clients' entries that are a letter or two from one of ours. */
const OTHER_CLIENTS = new Set(['dev', 'auth', 'name', 'trust', 'timeout', 'enabled', 'description']);

/** Words for a field that are not slips of its name. */
const SYNONYMS: Readonly<Record<string, string>> = {
  cmd: 'command',
  arguments: 'args',
  argv: 'args',
  environment: 'env',
  workingdirectory: 'cwd',
  working_directory: 'cwd',
  header: 'headers',
  endpoint: 'url',
  uri: 'url',
};

/** The field `key` most likely meant, when it is not one of `known` but close to one. */
export function meantField(key: string, known: readonly string[]): string | undefined {
  if (known.includes(key) || OTHER_CLIENTS.has(key)) return undefined;
  const lower = key.toLowerCase();
  // Each field by its own name and by its other words ("enviroment" is a slip of "environment").
  const names = [
    ...known.map((field) => [field.toLowerCase(), field] as const),
    ...Object.entries(SYNONYMS).filter(([, field]) => known.includes(field)),
  ];
  let best: { field: string; distance: number } | undefined;
  for (const [name, field] of names) {
    const distance = editDistance(lower, name);
    // A short name one edit off, a longer one two: "ur" for url, "comand" for command.
    if (distance <= (name.length <= 4 ? 1 : 2) && (!best || distance < best.distance))
      best = { field, distance };
  }
  return best?.field;
}

/** Levenshtein distance, with a swap of two neighbours counted as one edit. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}
