// The values behind the ${VAR} references import wrote: read again from the clients' own
// files, where they were written literally, for install to put into the client's mcpmux entry
// when the person says so. A value is found by where it stood — the same server and field
// (`env.GITHUB_TOKEN`, `headers.Authorization`) — never by the variable's name, which depends
// on which other servers were read: a name matched across a changed set of files could hand
// one server's secret to another.
import { existsSync, readFileSync } from 'node:fs';
import type { ClientDialect, ClientPlaces } from './client-dialect.js';
import { entryTexts, type PortableEntry } from './portable-entry.js';
import { serverName } from './import-servers.js';

/** A variable whose value a client's file holds. */
export interface FoundValue {
  variable: string;
  value: string;
  /** Where it was read: "Claude Desktop (…/claude_desktop_config.json) github env.GITHUB_TOKEN". */
  from: string;
}

export interface FoundValues {
  found: FoundValue[];
  /** Variables two client files give different values: none of them is written. */
  differing: string[];
}

/**
 * For each variable `wanted` names (per server of the served config), its value where a
 * client's entry for that server holds a literal in the field the reference stands in.
 */
export function valuesFromClients(
  served: Readonly<Record<string, PortableEntry>>,
  wanted: readonly { server: string; missing: readonly string[] }[],
  clients: readonly ClientDialect[],
  places: ClientPlaces,
  trustProject: boolean,
): FoundValues {
  const candidates = new Map<string, FoundValue[]>();
  const want = new Map(wanted.map((w) => [w.server, new Set(w.missing)]));
  for (const { server, entry, where } of clientEntries(clients, places, trustProject)) {
    const missing = want.get(server);
    const servedEntry = Object.hasOwn(served, server) ? served[server] : undefined;
    if (!missing || !servedEntry) continue;
    const literal = new Map(entryTexts(entry));
    for (const [field, template] of entryTexts(servedEntry))
      for (const variable of missing) {
        const value = fill(template, variable, literal.get(field));
        if (value === undefined) continue;
        const list = candidates.get(variable) ?? [];
        list.push({ variable, value, from: `${where} ${server} ${field}` });
        candidates.set(variable, list);
      }
  }
  const found: FoundValue[] = [];
  const differing: string[] = [];
  for (const [variable, list] of candidates) {
    if (list.every((c) => c.value === list[0]!.value)) found.push(list[0]!);
    else differing.push(variable);
  }
  return { found, differing };
}

/**
 * The text `${variable}` stands for in `template` when `literal` is that template filled in
 * ("Bearer ${TOKEN}" and "Bearer abc" give "abc"); undefined when it is not.
 */
function fill(template: string, variable: string, literal: string | undefined): string | undefined {
  if (literal === undefined || literal.includes('${')) return undefined;
  const parts = template.split(`\${${variable}}`);
  if (parts.length !== 2) return undefined;
  const [before, after] = parts as [string, string];
  if (before.includes('${') || after.includes('${')) return undefined;
  if (literal.length <= before.length + after.length) return undefined;
  if (!literal.startsWith(before) || !literal.endsWith(after)) return undefined;
  return literal.slice(before.length, literal.length - after.length);
}

/** Every server entry of the clients' files (a project's only when it is trusted), named as import names them. */
function* clientEntries(
  clients: readonly ClientDialect[],
  places: ClientPlaces,
  trustProject: boolean,
): Generator<{ server: string; entry: PortableEntry; where: string }> {
  for (const dialect of clients)
    for (const file of dialect.files(places)) {
      if (!existsSync(file.path) || (file.scope === 'project' && !trustProject)) continue;
      let servers;
      try {
        servers = dialect.read(readFileSync(file.path, 'utf8'), file, places);
      } catch {
        continue; // import reports a file it cannot read; here it only gives no values
      }
      for (const { name, entry } of servers)
        yield { server: serverName(name), entry, where: `${dialect.label} (${file.path})` };
    }
}
