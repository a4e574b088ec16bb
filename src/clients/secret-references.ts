// Secrets found in an imported entry (a value under a name such as *_TOKEN, *_KEY, *SECRET*,
// *PASSWORD*, an Authorization header, a URL with a password in it) become references to variables of mcpmux's
// environment, ${VAR}, so that a new config file holds none: the person sets the variables,
// and is told which. A value that already refers to a variable stays as it is.
import { entryTexts, type PortableEntry } from './portable-entry.js';
import { expandVariables } from '../config/expand-variables.js';

/** A variable the person is to set: its name, and which server's field it takes the place of. */
export interface SecretVariable {
  variable: string;
  server: string;
  field: string;
}

const SECRET_ENV = /(^|_)(TOKEN|KEY|APIKEY|PAT)$|SECRET|PASSWORD|PASSWD|CREDENTIAL/i;
const SECRET_HEADER = /^(authorization|proxy-authorization|cookie)$|token|key|secret|password/i;
/** Header names that say nothing of whose secret it is (X-Api-Key, Authorization): the server's name goes first. */
const GENERIC_HEADER =
  /^(AUTHORIZATION|PROXY_AUTHORIZATION|COOKIE|(API_?|ACCESS_|AUTH_|APP_|CLIENT_)?(KEY|TOKEN|SECRET|PASSWORD))$/;

export function isSecretEnvName(name: string): boolean {
  return SECRET_ENV.test(name);
}

export function isSecretHeaderName(name: string): boolean {
  return SECRET_HEADER.test(name);
}

/** A URL with a password in it (postgres://user:secret@host/db): a secret whatever its name. */
function holdsCredentials(value: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:[^/\s@]+@/i.test(value);
}

/** A value already written as a reference (${VAR}, ${env:VAR}, "Bearer ${TOKEN}") holds no secret itself. */
function refersAlready(value: string): boolean {
  return /\$\{[^}]+\}/.test(value) || value === '';
}

/** A variable name from parts: upper case, letters, digits and "_". */
export function variableName(...parts: string[]): string {
  return parts
    .join('_')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .replace(/^(\d)/, '_$1')
    .toUpperCase();
}

/**
 * Names variables for the secrets of many servers: a name two servers would give different
 * values is taken by the first, and the second's is prefixed with its server's name.
 */
export class SecretNames {
  readonly #values = new Map<string, string>();

  /** `entry` with each secret it holds replaced by a reference, and the variables named; `server` names it. */
  reference(server: string, entry: PortableEntry): { entry: PortableEntry; variables: SecretVariable[] } {
    const variables: SecretVariable[] = [];
    const name = (parts: string[], value: string, field: string) => {
      const variable = this.#name(server, parts, value);
      variables.push({ variable, server, field });
      return variable;
    };
    const out: PortableEntry = { ...entry };
    if (entry.env)
      out.env = Object.fromEntries(
        Object.entries(entry.env).map(([key, value]) =>
          (isSecretEnvName(key) || holdsCredentials(value)) && !refersAlready(value)
            ? [key, `\${${name([key], value, `env.${key}`)}}`]
            : [key, value],
        ),
      );
    if (entry.headers)
      out.headers = Object.fromEntries(
        Object.entries(entry.headers).map(([key, value]) => {
          if (!isSecretHeaderName(key) || refersAlready(value)) return [key, value];
          // "Bearer abc" keeps its scheme: the token alone is the secret.
          const scheme = /^(Bearer|Basic|Token|Bot)\s+(\S.*)$/i.exec(value);
          const secret = scheme ? scheme[2]! : value;
          const suffix = scheme ? (scheme[1]!.toLowerCase() === 'basic' ? 'CREDENTIALS' : 'TOKEN') : key;
          // A header named for what it holds keeps its name (CONTEXT7_API_KEY); a generic one says whose it is.
          const own = !scheme && !GENERIC_HEADER.test(variableName(key.replace(/^x-/i, '')));
          const variable = name(own ? [key] : [server, suffix], secret, `headers.${key}`);
          return [key, scheme ? `${scheme[1]} \${${variable}}` : `\${${variable}}`];
        }),
      );
    return { entry: out, variables };
  }

  #name(server: string, parts: string[], value: string): string {
    let variable = variableName(...parts);
    const taken = this.#values.get(variable);
    if (taken !== undefined && taken !== value) variable = variableName(server, ...parts);
    for (let n = 2; this.#values.has(variable) && this.#values.get(variable) !== value; n++)
      variable = variableName(server, ...parts, String(n));
    if (!this.#values.has(variable)) this.#values.set(variable, value);
    return variable;
  }
}

/**
 * The variables an entry refers to already (`${NAME}`, `${env:NAME}`; not one with a default), each
 * with where: a person must set them as much as those a secret became (a VS Code input is one).
 */
export function referencedVariables(server: string, entry: PortableEntry): SecretVariable[] {
  // Read as the config loader reads them: what it would find unset with nothing set (kept secrets aside).
  return entryTexts(entry).flatMap(([field, value]) =>
    expandVariables(value, {})
      .unset.filter((u) => !u.reference.startsWith('secret:'))
      .map((u) => ({ variable: u.reference, server, field })),
  );
}

/** Arguments that look like a secret given on the command line (--token=…, --api-key …): to be checked by hand. */
export function secretLookingArgs(args: readonly string[]): number[] {
  const flag = /^--?[\w-]*(token|key|secret|password)[\w-]*(=.+)?$/i;
  return args.flatMap((arg, i) => (flag.test(arg) && (arg.includes('=') || i + 1 < args.length) ? [i] : []));
}
