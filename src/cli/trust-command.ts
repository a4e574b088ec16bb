// mcpmux approve NAME [ITEM…] and mcpmux pins list|diff|forget: the operator's side of the
// trust gate, against the files a running mcpmux reads (it watches the pins and shows what is
// released at once). What is held is read from the held records a running mcpmux writes:
// the text is shown as the model would read it (hidden characters written out), a changed
// item as a diff, each with its flags, before anything is approved.
import { createInterface } from 'node:readline/promises';
import { readable } from '../trust/hidden-characters.js';
import { readSubcommand } from './subcommand-args.js';
import { HeldRecords, type HeldItem, type HeldRecord } from '../trust/held-records.js';
import { describeChange, parseItemKey, PinStore } from '../trust/pin-store.js';
import { flagLine } from '../trust/approval-form.js';

export const TRUST_COMMAND_HELP = `mcpmux approve NAME [ITEM…] [--yes]
  Release what a running mcpmux holds of server NAME: all of it (a held server), or the tools,
  prompts or templates named (a changed or new one). Shows the text first; on a terminal, asks.
mcpmux pins list
  The servers whose text was approved (by whom, when, how many items), and what is held now.
mcpmux pins diff NAME
  What is held of NAME: a changed item's old and new text, a new or held item's text, with flags.
mcpmux pins forget NAME|IDENTITY
  Forget what was approved of a server: its next list is held or taken as a first one again.`;

export interface TrustCommandContext {
  store: PinStore;
  held: HeldRecords;
  out: (text: string) => void;
  err: (text: string) => void;
  /** Asks a yes/no question on the terminal; undefined when there is none (then --yes is not needed). */
  confirm?: ((question: string) => Promise<boolean>) | undefined;
}

/** Runs `mcpmux approve ARGS` or `mcpmux pins ARGS`; resolves with the exit status. */
export async function runTrustCommand(
  command: 'approve' | 'pins',
  argv: readonly string[],
  ctx: TrustCommandContext,
): Promise<number> {
  const parsed = readSubcommand(argv, { yes: { short: 'y' } });
  if ('problem' in parsed) return usage(ctx, parsed.problem);
  const { values, positionals } = parsed;
  if (values.help) {
    ctx.out(TRUST_COMMAND_HELP);
    return 0;
  }
  if (command === 'approve') {
    const [name, ...items] = positionals;
    if (name === undefined) return usage(ctx, 'give the name of the server to approve');
    return approve(name, items, values.yes === true, ctx);
  }
  const [action, target, ...extra] = positionals;
  if (action === 'list' && target === undefined) return list(ctx);
  if (action === 'diff' && target !== undefined && extra.length === 0) return diff(target, ctx);
  if (action === 'forget' && target !== undefined && extra.length === 0) return forget(target, ctx);
  return usage(
    ctx,
    action === undefined ? 'give list, diff NAME or forget NAME' : `cannot read 'pins ${argv.join(' ')}'`,
  );
}

async function approve(
  name: string,
  wanted: string[],
  yes: boolean,
  ctx: TrustCommandContext,
): Promise<number> {
  const records = heldNamed(name, ctx);
  if (records.length === 0) return 1;
  for (const record of records) {
    const items =
      wanted.length === 0 ? record.items : record.items.filter((i) => wanted.some((w) => named(i, w)));
    const unknown = wanted.filter((w) => !record.items.some((i) => named(i, w)));
    if (unknown.length > 0) {
      ctx.err(
        `mcpmux approve: ${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not held of '${name}'; held: ${record.items.map((i) => parseItemKey(i.key).key).join(', ')}`,
      );
      return 1;
    }
    ctx.out(describeRecord(record, items));
    if (
      !yes &&
      ctx.confirm &&
      !(await ctx.confirm(`Release ${items.length} item(s) of '${name}' to the model?`))
    ) {
      ctx.err('mcpmux approve: nothing was approved');
      return 1;
    }
    ctx.store.approve(
      record.identity,
      items.map((i) => ({ ...parseItemKey(i.key), item: i.shown })),
      'operator',
    );
    ctx.out(
      `approved ${items.length} item(s) of '${name}' (${record.identity}); the mcpmux that holds it (pid ${record.pid}) shows them now`,
    );
  }
  return 0;
}

function list(ctx: TrustCommandContext): number {
  const pins = ctx.store.list();
  const held = ctx.held.list();
  if (pins.length === 0 && held.length === 0) ctx.out(`nothing is approved or held (${ctx.store.dir})`);
  for (const p of pins)
    ctx.out(
      `approved: ${p.identity}: ${Object.keys(p.items).length} item(s), by the ${p.approvedBy} at ${p.at}`,
    );
  for (const r of held)
    ctx.out(
      `held: ${r.name} (${r.identity}): ${r.serverHeld ? `the whole server (${r.serverHeld === 'hard-flag' ? 'a hard flag' : "strangers' code"}), ` : ''}` +
        `${r.items.map((i) => `${parseItemKey(i.key).key} ${i.reason}`).join(', ')}; mcpmux approve ${r.name} releases it`,
    );
  return 0;
}

function diff(name: string, ctx: TrustCommandContext): number {
  const records = heldNamed(name, ctx);
  if (records.length === 0) return 1;
  for (const record of records) ctx.out(describeRecord(record, record.items));
  return 0;
}

function forget(target: string, ctx: TrustCommandContext): number {
  const identities = new Set([
    ...ctx.held
      .list()
      .filter((r) => r.name === target)
      .map((r) => r.identity),
    ...ctx.store
      .list()
      .filter((p) => p.identity === target)
      .map((p) => p.identity),
  ]);
  let forgotten = 0;
  for (const identity of identities) if (ctx.store.forget(identity)) forgotten++;
  if (forgotten === 0) {
    ctx.err(`mcpmux pins: nothing is approved of '${target}' ('mcpmux pins list' shows what is)`);
    return 1;
  }
  ctx.out(`forgot what was approved of ${[...identities].join(', ')}`);
  return 0;
}

function heldNamed(name: string, ctx: TrustCommandContext): HeldRecord[] {
  const records = ctx.held.list().filter((r) => r.name === name);
  if (records.length === 0) {
    const held = ctx.held.list().map((r) => r.name);
    ctx.err(
      `mcpmux: nothing of a server named '${name}' is held${held.length > 0 ? ` (held: ${[...new Set(held)].join(', ')})` : ' by a running mcpmux'}`,
    );
  }
  return records;
}

/** An item named by its own name (a tool's, a prompt's, a template's URI template) or its `kind:key`. */
const named = (item: HeldItem, wanted: string) =>
  item.key === wanted || parseItemKey(item.key).key === wanted;

/** What is held of a server, for a person to read before approving: text, diffs and flags. */
function describeRecord(record: HeldRecord, items: readonly HeldItem[]): string {
  const head = `${record.name} (${record.identity})${record.serverHeld ? `: held whole (${record.serverHeld === 'hard-flag' ? 'a hard flag was raised' : "it runs strangers' code"})` : ''}`;
  return [head, ...items.map(describeItem)].join('\n\n');
}

function describeItem(item: HeldItem): string {
  const { kind, key } = parseItemKey(item.key);
  const lines = [`${kind} ${readable(key)}: ${item.reason}`];
  const fields = describeChange(item.before ?? {}, item.shown).filter(({ field }) => field !== 'name');
  for (const { field, before, after } of fields)
    if (item.before) lines.push(`  ${field}:`, indent('- ', readable(before)), indent('+ ', readable(after)));
    else lines.push(`  ${field}: ${readable(after)}`);
  for (const flag of item.flags) lines.push(`  ${flagLine(flag)}`);
  return lines.join('\n');
}

const indent = (mark: string, text: string) =>
  text
    .split('\n')
    .map((line) => `    ${mark}${line}`)
    .join('\n');

function usage(ctx: TrustCommandContext, problem: string): number {
  ctx.err(`mcpmux: ${problem}\n${TRUST_COMMAND_HELP}`);
  return 2;
}

/** A yes/no on the terminal (stderr), default no. */
export async function confirmOnTerminal(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
  } finally {
    rl.close();
  }
}
