// `${VAR}`, `${env:VAR}` and `${VAR:-default}` in config strings, as Claude Code and
// VS Code write them, and `${secret:ENTRY/NAME}`, a secret kept for a registry entry (what
// add_server's persist writes instead of the value). A reference mcpmux cannot read is a
// problem of the config; an unset variable without a default, or a secret not kept, is told
// apart (`unset`): the server that needs it waits for it, and the others start.

import { readSecretReference } from '../secrets/secret-reference.js';

const PATTERN = /\$\{([^}]*)\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface Expansion {
  value: string;
  /** What the config got wrong, e.g. "${input:token} is not a variable mcpmux can expand". */
  problems: string[];
  /** Values that are not there yet, each said with its reference: "${GITHUB_TOKEN} is not set in mcpmux's environment". */
  unset: Unset[];
}

/** A value a config refers to that is not there: a variable (its name) or a kept secret (`secret:ENTRY/NAME`). */
export interface Unset {
  reference: string;
  problem: string;
}

/** A kept secret's value by its registry entry and name; undefined when none is kept. */
export type SecretLookup = (entry: string, name: string) => string | undefined;

export function expandVariables(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
  secret?: SecretLookup,
): Expansion {
  const problems: string[] = [];
  const unset: Unset[] = [];
  const value = text.replace(PATTERN, (whole, inner: string) => {
    const reference = readSecretReference(inner);
    if (reference === 'bad') {
      problems.push(
        `${whole} is not a secret reference (use \${secret:ENTRY/NAME}, e.g. \${secret:io.github.owner/server/API_KEY})`,
      );
      return whole;
    }
    if (reference) {
      const { entry, name } = reference;
      let kept: string | undefined;
      try {
        kept = secret?.(entry, name);
      } catch (error) {
        // The kept secrets' folder is not private (common/private-file.ts): named, not used.
        problems.push(`${whole}: ${(error as Error).message}`);
        return whole;
      }
      if (kept !== undefined) return kept;
      unset.push({
        reference: inner,
        problem: `${whole}: no secret ${name} is kept for ${entry} ('mcpmux secrets list' shows what is; add the server again to be asked for it)`,
      });
      return whole;
    }
    const body = inner.startsWith('env:') ? inner.slice(4) : inner;
    const dash = body.indexOf(':-');
    const name = dash === -1 ? body : body.slice(0, dash);
    if (!NAME.test(name)) {
      problems.push(
        `${whole} is not a variable mcpmux can expand (use \${NAME}, \${env:NAME} or \${NAME:-default})`,
      );
      return whole;
    }
    const found = env[name];
    if (found !== undefined && found !== '') return found;
    if (dash !== -1) return body.slice(dash + 2);
    unset.push({ reference: name, problem: `${whole} is not set in mcpmux's environment` });
    return whole;
  });
  return { value, problems, unset };
}
