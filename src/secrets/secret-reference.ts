// `${secret:ENTRY/NAME}`: how a config file refers to a secret kept for a registry entry (what
// add_server's persist writes instead of the value, and what the config loader reads back from
// the kept store). Written and read here only.

const PREFIX = 'secret:';
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The reference to `name` kept for `entry`, as a config file holds it. */
export const secretReference = (entry: string, name: string): string => `\${${PREFIX}${entry}/${name}}`;

/**
 * What the inside of a `${…}` names when it is a secret reference: its entry and name; `bad`
 * when it begins as one and is not; undefined when it is another kind of variable.
 */
export function readSecretReference(inner: string): { entry: string; name: string } | 'bad' | undefined {
  if (!inner.startsWith(PREFIX)) return undefined;
  const reference = inner.slice(PREFIX.length);
  const slash = reference.lastIndexOf('/');
  const [entry, name] = [reference.slice(0, slash), reference.slice(slash + 1)];
  return slash <= 0 || !NAME.test(name) ? 'bad' : { entry, name };
}
