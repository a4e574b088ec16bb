// `${VAR}`, `${env:VAR}` and `${VAR:-default}` in config strings, as Claude Code and
// VS Code write them, and `${secret:ENTRY/NAME}`, a secret kept for a registry entry (what
// add_server's persist writes instead of the value). An unset variable without a default, or
// a secret not kept, is an error that names it and where it was used, so a broken config
// fails before anything is spawned.

import { readSecretReference } from '../secrets/secret-reference.js';

const PATTERN = /\$\{([^}]*)\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface Expansion {
  value: string;
  /** Problems found, e.g. "${GITHUB_TOKEN} is not set". */
  problems: string[];
}

/** A kept secret's value by its registry entry and name; undefined when none is kept. */
export type SecretLookup = (entry: string, name: string) => string | undefined;

export function expandVariables(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
  secret?: SecretLookup,
): Expansion {
  const problems: string[] = [];
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
      problems.push(
        `${whole}: no secret ${name} is kept for ${entry} ('mcpmux secrets list' shows what is; add the server again to be asked for it)`,
      );
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
    problems.push(`${whole} is not set in mcpmux's environment`);
    return whole;
  });
  return { value, problems };
}
