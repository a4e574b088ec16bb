// The values behind the ${VAR} references import wrote: read again from the clients' own
// files, where they were written literally, for install to put into the client's mcpmux entry
// when the person says so. A value is found by where it stood — the same server and field
// (`env.GITHUB_TOKEN`, `headers.Authorization`) — never by the variable's name, which depends
// on which other servers were read: a name matched across a changed set of files could hand
// one server's secret to another. What `install --replace` took out of a client's file is
// read from that file's latest backup, for the values the files no longer hold.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
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
  const gather = (entries: Iterable<{ server: string; entry: PortableEntry; where: string }>) => {
    for (const { server, entry, where } of entries) {
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
  };
  gather(clientEntries(clients, places, trustProject, false));
  // What `install --replace` took out of a client's file is in its latest backup: read for
  // what the files hold no more (a value the files hold now wins over an older one).
  for (const set of want.values()) for (const variable of candidates.keys()) set.delete(variable);
  gather(clientEntries(clients, places, trustProject, true));
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

/**
 * Every server entry of the clients' files (a project's only when it is trusted), named as
 * import names them; with `backups`, of each file's latest install backup instead.
 */
function* clientEntries(
  clients: readonly ClientDialect[],
  places: ClientPlaces,
  trustProject: boolean,
  backups: boolean,
): Generator<{ server: string; entry: PortableEntry; where: string }> {
  for (const dialect of clients)
    for (const file of dialect.files(places)) {
      if (file.scope === 'project' && !trustProject) continue;
      const path = backups ? latestBackup(file.path) : file.path;
      if (path === undefined || !existsSync(path)) continue;
      let servers;
      try {
        servers = dialect.read(readFileSync(path, 'utf8'), file, places);
      } catch {
        continue; // import reports a file it cannot read; here it only gives no values
      }
      for (const { name, entry } of servers)
        yield { server: serverName(name), entry, where: `${dialect.label} (${path})` };
    }
}

/** The newest FILE.mcpmux-backup-<time> beside a client's file (their names sort by time). */
function latestBackup(path: string): string | undefined {
  let names: string[];
  try {
    names = readdirSync(dirname(path));
  } catch {
    return undefined;
  }
  const prefix = `${basename(path)}.mcpmux-backup-`;
  // <time>, then <time>-2, <time>-3… when one second held several (backUp in write-whole.ts).
  const stamped = names.flatMap((name) => {
    const m = name.startsWith(prefix) ? /^(\d{8}T\d{6}Z)(?:-(\d+))?$/.exec(name.slice(prefix.length)) : null;
    return m ? [{ name, time: m[1]!, n: Number(m[2] ?? 1) }] : [];
  });
  stamped.sort((a, b) => (a.time === b.time ? b.n - a.n : a.time < b.time ? 1 : -1));
  return stamped[0] && join(dirname(path), stamped[0].name);
}
