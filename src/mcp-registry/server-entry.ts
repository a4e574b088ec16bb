// A server as an MCP registry describes it (server.json, the 2025-09-29 schema and later): how
// it runs (an npm, PyPI or OCI package, or a remote URL), and the inputs it takes (arguments,
// environment variables, headers), each perhaps required, secret or defaulted. Read leniently:
// fields mcpmux does not use are kept as they came, and an entry that fails this schema is
// skipped by the listing rather than failing it.
import { z } from 'zod';

/** An input's value: given, defaulted, or asked of the person (registry `Input`). */
const inputFields = {
  description: z.string().optional(),
  isRequired: z.boolean().optional(),
  isSecret: z.boolean().optional(),
  default: z.string().optional(),
  /** Fixed by the publisher; `{name}` in it is replaced from `variables`. */
  value: z.string().optional(),
  placeholder: z.string().optional(),
  choices: z.array(z.string()).optional(),
  format: z.string().optional(),
};

const input = z.looseObject(inputFields);

const withVariables = {
  ...inputFields,
  variables: z.record(z.string(), input).optional(),
};

/** An environment variable or a header. */
export const keyValueInput = z.looseObject({ ...withVariables, name: z.string().min(1) });

export const argumentInput = z.looseObject({
  ...withVariables,
  type: z.enum(['positional', 'named']),
  /** A named argument's flag, dashes included. */
  name: z.string().optional(),
  /** A positional argument's label (not on the command line). */
  valueHint: z.string().optional(),
  isRepeated: z.boolean().optional(),
});

const transport = z.looseObject({
  type: z.string(),
  url: z.string().optional(),
  headers: z.array(keyValueInput).optional(),
});

export const packageEntry = z.looseObject({
  registryType: z.string(),
  identifier: z.string().min(1),
  version: z.string().optional(),
  registryBaseUrl: z.string().optional(),
  runtimeHint: z.string().optional(),
  runtimeArguments: z.array(argumentInput).optional(),
  packageArguments: z.array(argumentInput).optional(),
  environmentVariables: z.array(keyValueInput).optional(),
  transport: transport.optional(),
});

export const remoteEntry = z.looseObject({
  type: z.string(),
  url: z.string().min(1),
  headers: z.array(keyValueInput).optional(),
  /** The URL template's `{name}`s: each an input, perhaps secret, defaulted or one of its choices. */
  variables: z.record(z.string(), input).optional(),
});

export const serverEntry = z.looseObject({
  name: z.string().min(1),
  title: z.string().optional(),
  description: z.string().optional(),
  version: z.string().optional(),
  websiteUrl: z.string().optional(),
  repository: z.looseObject({ url: z.string().optional(), source: z.string().optional() }).optional(),
  packages: z.array(packageEntry).optional(),
  remotes: z.array(remoteEntry).optional(),
});

export type InputEntry = z.infer<typeof input>;
export type KeyValueInput = z.infer<typeof keyValueInput>;
export type ArgumentInput = z.infer<typeof argumentInput>;
export type PackageEntry = z.infer<typeof packageEntry>;
export type RemoteEntry = z.infer<typeof remoteEntry>;
export type ServerEntry = z.infer<typeof serverEntry>;
