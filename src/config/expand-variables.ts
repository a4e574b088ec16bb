// `${VAR}`, `${env:VAR}` and `${VAR:-default}` in config strings, as Claude Code and
// VS Code write them. An unset variable without a default is an error that names it and
// where it was used, so a broken config fails before anything is spawned.

const PATTERN = /\$\{([^}]*)\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface Expansion {
  value: string;
  /** Problems found, e.g. "${GITHUB_TOKEN} is not set". */
  problems: string[];
}

export function expandVariables(text: string, env: Readonly<Record<string, string | undefined>>): Expansion {
  const problems: string[] = [];
  const value = text.replace(PATTERN, (whole, inner: string) => {
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
