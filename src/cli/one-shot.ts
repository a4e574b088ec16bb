// `mcpmux inspect`: for the author of a server, start it (or a whole config) the way mcpmux
// would, show what a client would see, and exit. `mcpmux auth NAME`: start only that remote
// server, which signs in (and keeps the tokens); with --logout, forget what is kept for it
// (and the person's session at its identity provider). The same children, router and spawn
// policy as the server, so what works here works there. (`mcpmux call` goes through a whole
// session: wiring/call-session.ts; how its answer is shown is here.) Exit status: 0 when
// everything worked, 1 when a server failed to start (inspect: or listed something that is
// not valid MCP, which no client is shown).
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/server';
import type { ConfiguredServer } from '../config/load-config.js';
import { messageOf } from '../common/errors.js';
import type { Logger } from '../common/log.js';
import type { SpawnPolicy } from '../policy/spawn-policy.js';
import { Children } from '../children/children.js';
import { runningServers } from '../children/children-snapshot.js';
import { CAPABILITY_TABLE, type CatalogItems, type CatalogKind } from '../protocol/capabilities.js';
import type { CatalogRouter } from '../router/catalog-router.js';
import { serverNameProblem } from '../router/tool-names.js';
import type { CliOptions } from './cli-options.js';
import { CredentialStore, oauthStateDir } from '../oauth/credential-store.js';
import { idpSessionStore } from '../oauth/idp-session.js';
import type { RemoteServerSpec } from '../child/server-spec.js';
import { HARD_KINDS, type Flag } from '../trust/poison-scan.js';
import { scanServers } from '../trust/scan-servers.js';
import { pinnedKey } from '../trust/trust-gate.js';

export interface OneShotContext {
  options: CliOptions;
  servers: readonly ConfiguredServer[];
  policy: SpawnPolicy;
  router: CatalogRouter;
  logger: Logger;
  out: (text: string) => void;
  err: (text: string) => void;
}

/** Runs inspect or auth; resolves with the exit status once every child is stopped. */
export async function runOneShot(ctx: OneShotContext): Promise<number> {
  const { options, logger } = ctx;
  let servers = ctx.servers;
  if (options.auth) {
    const chosen = authTarget(ctx, options.auth.server);
    if (!chosen) return 1;
    if (options.auth.logout) return signOut(ctx, chosen);
    servers = [chosen];
  }
  const children = new Children({
    logger,
    validateName: (name) => serverNameProblem(name, options.maxToolName),
    connection: {
      spawnPolicy: ctx.policy,
      startupTimeoutMs: options.startupTimeoutMs,
      callTimeoutMs: options.callTimeoutMs,
      pingIntervalMs: 0,
      ...(options.clientMetadataUrl !== undefined && { clientMetadataUrl: options.clientMetadataUrl }),
    },
  });
  try {
    const started = await Promise.allSettled(servers.map(({ name, spec }) => children.add(name, spec)));
    let status = 0;
    started.forEach((outcome, i) => {
      if (outcome.status === 'fulfilled') return;
      status = 1;
      ctx.err(`server '${servers[i]!.name}' failed to start: ${messageOf(outcome.reason)}`);
    });
    if (options.auth) {
      if (status === 0) toldSignedIn(ctx, servers[0]!.name, servers[0]!.spec as RemoteServerSpec);
      return status;
    }
    const report = inspect(children, ctx.router);
    ctx.out(options.json ? JSON.stringify(report, null, 2) : formatInspect(report));
    return report.servers.some((s) => s.skipped) ? 1 : status;
  } finally {
    await children.close();
  }
}

/** auth --logout: what was kept for the server removed, and the person's session at their identity provider. */
function signOut(ctx: OneShotContext, chosen: { name: string; spec: RemoteServerSpec }): number {
  const store = new CredentialStore(chosen.spec.url);
  ctx.out(
    store.remove()
      ? `signed out of '${chosen.name}': removed ${store.path}`
      : `nothing was kept for '${chosen.name}' (${chosen.spec.url})`,
  );
  // The person's session at their identity provider, shared by the organisation's servers.
  const idp = chosen.spec.oauth ? chosen.spec.oauth.idp : undefined;
  if (idp && idp.idTokenFile === undefined) {
    const session = idpSessionStore(idp, oauthStateDir());
    if (session.remove())
      ctx.out(
        `signed out of the identity provider ${idp.issuer} (for every server it signs in to): removed ${session.path}`,
      );
  }
  return 0;
}

/** auth: where the sign-in is kept. */
function toldSignedIn(ctx: OneShotContext, name: string, { url, oauth }: RemoteServerSpec): void {
  ctx.out(`signed in to '${name}' (${url}); kept in ${new CredentialStore(url).path}`);
  if (oauth && oauth.idp && oauth.idp.idTokenFile === undefined)
    ctx.out(
      `your session at the identity provider ${oauth.idp.issuer} is kept in ${idpSessionStore(oauth.idp, oauthStateDir()).path}`,
    );
}

/** The remote server with OAuth that auth names, or undefined after saying what is wrong. */
function authTarget(ctx: OneShotContext, name: string): { name: string; spec: RemoteServerSpec } | undefined {
  const server = ctx.servers.find((s) => s.name === name);
  const known = ctx.servers.map((s) => s.name).join(', ') || '(none)';
  if (!server) ctx.err(`mcpmux auth: no server named '${name}' in the config (servers: ${known})`);
  else if (server.spec.transport !== 'http')
    ctx.err(`mcpmux auth: '${name}' is a local command; signing in is for remote servers (a url)`);
  else if (server.spec.oauth === false)
    ctx.err(`mcpmux auth: '${name}' has "oauth": false in the config; remove it to sign in`);
  else return { name, spec: server.spec };
  return undefined;
}

/** A flag of the poisoning scanner, and whether it is one that holds a server whoever added it. */
type InspectFlag = Flag & { hard: boolean };

interface ServerReport {
  name: string;
  pid?: number | undefined;
  tools: (CatalogItems['tools'] & { flags: InspectFlag[] })[];
  prompts: (CatalogItems['prompts'] & { flags: InspectFlag[] })[];
  resources: CatalogItems['resources'][];
  resourceTemplates: (CatalogItems['resourceTemplates'] & { flags: InspectFlag[] })[];
  /** What it listed that is not valid MCP, so that no client is shown it: each item and why. */
  skipped?: string[] | undefined;
  /** Its initialize result's instructions, as the model is given them (list_servers, add_server). */
  instructions?: string | undefined;
}

/**
 * What a client would be shown, per running server, under the exposed names; each tool,
 * prompt and resource template with the flags the poisoning scanner raises on its text (the
 * person's and operator's view: these never go to a model).
 */
function inspect(children: Children, router: CatalogRouter): { servers: ServerReport[] } {
  const snapshot = children.snapshot;
  const routesOf = <K extends CatalogKind>(kind: K, server: string) =>
    [...router.table(snapshot, kind).byKey.values()].filter((route) => route.server === server);
  // Each route holds the child's own item; the client sees it under the exposed key.
  const of = <K extends CatalogKind>(kind: K, server: string): CatalogItems[K][] =>
    routesOf(kind, server).map((route) => ({
      ...route.item,
      [CAPABILITY_TABLE[kind].key]: route.exposedKey,
    }));
  const running = runningServers(snapshot);
  // Scanned as list_servers scans them: each beside the others' tools (shadowing).
  const scanned = scanServers(running.map((view) => ({ name: view.name, catalog: view.catalog })));
  const servers = running.map((view) => {
    const { pid, skipped, instructions } = view.connection.status();
    const byItem = scanned.get(view.name);
    const flagged = <K extends 'tools' | 'prompts' | 'resourceTemplates'>(kind: K) =>
      routesOf(kind, view.name).map((route) => ({
        ...route.item,
        [CAPABILITY_TABLE[kind].key]: route.exposedKey,
        flags: (byItem?.get(pinnedKey(kind, route.item)) ?? []).map((f) => ({
          ...f,
          hard: HARD_KINDS.has(f.kind),
        })),
      })) as (CatalogItems[K] & { flags: InspectFlag[] })[];
    return {
      name: view.name,
      pid,
      tools: flagged('tools'),
      prompts: flagged('prompts'),
      resources: of('resources', view.name),
      resourceTemplates: flagged('resourceTemplates'),
      ...(skipped && { skipped }),
      ...(instructions && { instructions }),
    };
  });
  return { servers };
}

function formatInspect(report: { servers: ServerReport[] }): string {
  if (report.servers.length === 0) return 'no server is running';
  const lines: string[] = [];
  for (const s of report.servers) {
    const counts = [
      plural(s.tools.length, 'tool'),
      plural(s.prompts.length, 'prompt'),
      plural(s.resources.length, 'resource'),
      plural(s.resourceTemplates.length, 'resource template'),
    ];
    lines.push(`${s.name} (pid ${s.pid}): ${counts.join(', ')}`);
    section(
      lines,
      'tools',
      s.tools,
      (t) => `${t.name}(${parameters(t.inputSchema)})${summary(t.description)}`,
    );
    section(
      lines,
      'prompts',
      s.prompts,
      (p) =>
        `${p.name}(${(p.arguments ?? []).map((a) => (a.required ? a.name : `${a.name}?`)).join(', ')})${summary(p.description)}`,
    );
    section(
      lines,
      'resources',
      s.resources,
      (r) => `${r.uri}${summary(r.name)}${r.mimeType ? ` (${r.mimeType})` : ''}`,
    );
    section(lines, 'resource templates', s.resourceTemplates, (r) => `${r.uriTemplate}${summary(r.name)}`);
    section(
      lines,
      'flags raised by the poisoning scanner (docs/security.md)',
      [...s.tools, ...s.prompts, ...s.resourceTemplates].flatMap((item) =>
        item.flags.map((f) => ({ item: 'uriTemplate' in item ? String(item.uriTemplate) : item.name, ...f })),
      ),
      (f) => `${f.item}: ${f.kind}${f.hard ? ' (hard)' : ''} in ${f.where}: ${f.text}`,
    );
    section(lines, 'not valid MCP, so not shown to clients', s.skipped ?? [], (why) => why);
    section(lines, 'instructions', s.instructions?.split('\n') ?? [], (line) => line);
  }
  return lines.join('\n');
}

function section<T>(lines: string[], title: string, items: readonly T[], line: (item: T) => string): void {
  if (items.length === 0) return;
  lines.push(`  ${title}`);
  for (const item of items) lines.push(`    ${line(item)}`.trimEnd());
}

/** `a: string, b?: number` from a JSON Schema object. */
function parameters(schema: {
  properties?: Record<string, unknown> | undefined;
  required?: string[] | undefined;
}): string {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {})
    .map(([name, prop]) => `${name}${required.has(name) ? '' : '?'}: ${typeName(prop as { type?: unknown })}`)
    .join(', ');
}

const typeName = (prop: { type?: unknown }) =>
  Array.isArray(prop.type) ? prop.type.join('|') : typeof prop.type === 'string' ? prop.type : 'any';
const summary = (text: string | undefined) => (text ? ` — ${text.split('\n')[0]}` : '');
const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** A tool's answer as `mcpmux call` shows it: its text (an error's on stderr), or all of it as JSON with --json. */
export function printCallResult(
  result: CallToolResult,
  json: boolean,
  { out, err }: { out: (text: string) => void; err: (text: string) => void },
): void {
  if (json) return out(JSON.stringify(result, null, 2));
  const text = result.content.map(describeBlock).join('\n');
  const structured =
    result.structuredContent && !result.content.length
      ? JSON.stringify(result.structuredContent, null, 2)
      : '';
  (result.isError ? err : out)(text || structured || '(no content)');
}

function describeBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type} ${block.mimeType}, ${Math.round((block.data.length * 3) / 4)} bytes]`;
    case 'resource_link':
      return `[resource link ${block.uri}]`;
    case 'resource':
      return 'text' in block.resource ? String(block.resource.text) : `[resource ${block.resource.uri}]`;
    default:
      return JSON.stringify(block);
  }
}
