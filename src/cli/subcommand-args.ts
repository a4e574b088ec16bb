// The command line of a small subcommand (secrets, approve, pins): its boolean flags, --help,
// and its positionals; a mistake comes back as the problem to show with the usage.
import { parseArgs } from 'node:util';

export type SubcommandArgs<F extends string> =
  { values: Partial<Record<F | 'help', boolean>>; positionals: string[] } | { problem: string };

export function readSubcommand<F extends string>(
  argv: readonly string[],
  flags: Record<F, { short?: string }>,
): SubcommandArgs<F> {
  const options: Record<string, { type: 'boolean'; short?: string }> = {
    help: { type: 'boolean', short: 'h' },
  };
  for (const [name, { short }] of Object.entries<{ short?: string }>(flags))
    options[name] = { type: 'boolean', ...(short && { short }) };
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      options,
      strict: true,
      allowPositionals: true,
    });
    return { values: values as Partial<Record<F | 'help', boolean>>, positionals };
  } catch (error) {
    return { problem: (error as Error).message };
  }
}
