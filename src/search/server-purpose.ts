// What a server says it is for, in one line: the first sentence of its instructions, else
// its title. Shown where a model chooses among servers (list_modules, the agent tool).

/** At most this many characters of it are shown. */
const SHOWN = 160;

export function serverPurpose(
  about: { title?: string | undefined; instructions?: string | undefined } | undefined,
): string | undefined {
  const said = about?.instructions?.trim().split(/(?<=[.!?])\s|\n/)[0] ?? about?.title;
  return said ? said.slice(0, SHOWN) : undefined;
}
