// mcpmux secrets list|forget: the secrets people agreed to keep for registry entries' variables
// (secrets/kept-secrets.ts), shown by name only and forgotten one, an entry's or all at a
// time. Values are never printed.
import { readSubcommand } from './subcommand-args.js';
import type { KeptSecrets } from '../secrets/kept-secrets.js';

export const SECRETS_COMMAND_HELP = `mcpmux secrets list
  The registry entries with kept secrets, and the names of those secrets (never their values).
mcpmux secrets forget ENTRY [NAME] | --all
  Forget the secret NAME of ENTRY (e.g. io.github.owner/server API_KEY), all of ENTRY's, or every one.`;

export interface SecretsCommandContext {
  kept: KeptSecrets;
  out: (text: string) => void;
  err: (text: string) => void;
}

/** Runs `mcpmux secrets ARGS`; resolves with the exit status (1 when nothing was there to forget, 2 for a bad command line). */
export function runSecretsCommand(argv: readonly string[], ctx: SecretsCommandContext): number {
  const parsed = readSubcommand(argv, { all: {} });
  if ('problem' in parsed) return usage(ctx, parsed.problem);
  const { values, positionals } = parsed;
  if (values.help) {
    ctx.out(SECRETS_COMMAND_HELP);
    return 0;
  }
  const [action, entry, name, ...extra] = positionals;
  if (action === 'list' && positionals.length === 1 && !values.all) {
    const kept = ctx.kept.list();
    if (kept.length === 0) ctx.out(`no secrets are kept (${ctx.kept.dir})`);
    for (const k of kept) ctx.out(`${k.entry} (${k.registry}): ${k.names.join(', ')}`);
    return 0;
  }
  if (action === 'forget' && values.all && entry === undefined) {
    let forgotten = 0;
    for (const k of ctx.kept.list()) forgotten += ctx.kept.forget(k.entry);
    ctx.out(`forgot ${forgotten} secret(s)`);
    return 0;
  }
  if (action === 'forget' && !values.all && entry !== undefined && extra.length === 0) {
    const forgotten = ctx.kept.forget(entry, name);
    if (forgotten === 0) {
      ctx.err(
        `mcpmux secrets: no secret${name ? ` ${name}` : ''} is kept for ${entry} ('mcpmux secrets list' shows what is)`,
      );
      return 1;
    }
    ctx.out(`forgot ${forgotten} secret(s) of ${entry}`);
    return 0;
  }
  return usage(ctx, action === undefined ? 'give list or forget' : `cannot read 'secrets ${argv.join(' ')}'`);
}

function usage(ctx: SecretsCommandContext, problem: string): number {
  ctx.err(`mcpmux secrets: ${problem}\n${SECRETS_COMMAND_HELP}`);
  return 2;
}
