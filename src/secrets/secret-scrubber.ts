// The last line between the secrets mcpmux holds and everything it shows: the values a person
// gave for a registry entry (kept or not), read from the kept store, or put into a remote's URL
// are registered here when mcpmux takes them, and every text mcpmux writes for someone else —
// its own tool results and errors, log and audit lines, the call log, spans — passes through
// scrubSecrets, which writes each value it finds as [secret NAME]. Nothing is registered on
// most runs, and then scrubbing is one size check.

/** Shorter values are not scrubbed: a two-letter "secret" would blank out words everywhere. */
export const MIN_SCRUBBED_LENGTH = 4;

const held = new Map<string, string>();
let pattern: RegExp | undefined;

/** Registers `value` (by the name it is shown as) to be scrubbed from every outward text from now on. */
export function holdSecret(name: string, value: string): void {
  if (value.length < MIN_SCRUBBED_LENGTH) return;
  // As a URL carries it too: a secret in a remote's URL is percent-encoded there.
  for (const form of new Set([value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)]))
    if (!held.has(form)) {
      held.set(form, name);
      pattern = undefined;
    }
}

/** Registers every value of `secrets` (name → value). */
export function holdSecrets(secrets: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(secrets)) holdSecret(name, value);
}

/** `text` with every held secret written as [secret NAME]. */
export function scrubSecrets(text: string): string {
  if (held.size === 0) return text;
  pattern ??= new RegExp(
    // Longest first, so a secret that contains another is replaced whole.
    [...held.keys()]
      .sort((a, b) => b.length - a.length)
      .map((value) => value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('|'),
    'g',
  );
  return text.replace(pattern, (found) => `[secret ${held.get(found)}]`);
}

/** A value (a result, an entry of the call log) scrubbed through its JSON: a copy when anything was found. */
export function scrubbedCopy<T>(value: T): T {
  if (held.size === 0) return value;
  const json = JSON.stringify(value);
  if (json === undefined) return value;
  const scrubbed = scrubSecrets(json);
  return scrubbed === json ? value : (JSON.parse(scrubbed) as T);
}
