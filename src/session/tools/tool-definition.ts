// How mcpmux defines its own tools: input and output schemas written with zod, listed as
// JSON Schema without zod's noise, and arguments checked at the edge with errors that name
// each offending field.
import type { Tool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { MuxError } from '../../common/errors.js';

export function define(name: string, description: string, input: z.ZodType, output?: z.ZodType): Tool {
  const tool: Tool = { name, description, inputSchema: jsonSchema(input) as Tool['inputSchema'] };
  if (output) tool.outputSchema = jsonSchema(output) as NonNullable<Tool['outputSchema']>;
  return tool;
}

function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  return withoutNoise(rest) as Record<string, unknown>;
}

/**
 * Drops what zod writes that tells a model nothing: the ±MAX_SAFE_INTEGER bounds of an
 * `int()` and `propertyNames: {type: string}` of a record (JSON keys are strings anyway).
 * Every byte here is paid by every request of every session.
 */
function withoutNoise(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutNoise);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (
      (key === 'maximum' && value === Number.MAX_SAFE_INTEGER) ||
      (key === 'minimum' && value === Number.MIN_SAFE_INTEGER)
    )
      continue;
    if (key === 'propertyNames' && JSON.stringify(value) === '{"type":"string"}') continue;
    out[key] = withoutNoise(value);
  }
  return out;
}

/**
 * A management tool as listed in search mode, where the listed surface is the whole
 * context cost: without its outputSchema (a result's text block carries the same JSON), and
 * with each argument that is itself a structure (add_server's oauth, watch, restart…) listed
 * by its type and description alone, whose example shows its fields. Arguments are checked
 * against the whole schema all the same, and a wrong field is told with the ones there are.
 */
export function compactDefinition(tool: Tool): Tool {
  const { outputSchema: _drop, ...compact } = tool;
  const properties = tool.inputSchema.properties as Record<string, Record<string, unknown>> | undefined;
  if (!properties) return compact;
  const flat = Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, shallow(value)]));
  // (additionalProperties: false says what the answer to an unknown field says too.)
  const { additionalProperties: _closed, ...schema } = tool.inputSchema;
  return { ...compact, inputSchema: { ...schema, properties: flat as Tool['inputSchema']['properties'] } };
}

/** Bounds a model need not read to write a good call: a value out of them is answered saying so. */
const BOUNDS = new Set([
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'exclusiveMinimum',
]);

/** A structured argument as its type(s) and description; anything else without its bounds. */
function shallow(schema: Record<string, unknown>): Record<string, unknown> {
  const options = (schema['anyOf'] as Record<string, unknown>[] | undefined) ?? [schema];
  if (!options.some((option) => option['properties'] !== undefined))
    return Object.fromEntries(Object.entries(schema).filter(([key]) => !BOUNDS.has(key)));
  const types = [...new Set(options.map((option) => option['type']).filter((t) => typeof t === 'string'))];
  return {
    type: types.length === 1 ? types[0] : types,
    ...(schema['description'] !== undefined && { description: schema['description'] }),
  };
}

/** Validates tool arguments; the error names each offending field and what was expected. */
export function parseArguments<T extends z.ZodType>(tool: string, schema: T, raw: unknown): z.infer<T> {
  const result = schema.safeParse(raw ?? {});
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const path = issue.path.join('.') || '(arguments)';
    if (issue.code === 'unrecognized_keys') {
      const known = fieldsAt(schema, issue.path);
      const unknown = issue.keys.map((key) => {
        const near =
          key.length >= 3
            ? known.find((k) => k.startsWith(key) || key.startsWith(k) || k.includes(key))
            : undefined;
        return near ? `'${key}' (did you mean '${near}'?)` : `'${key}'`;
      });
      const at = issue.path.length > 0 ? ` in ${path}` : '';
      return `unknown field(s)${at} ${unknown.join(', ')}${known.length > 0 ? `; the fields are ${known.join(', ')}` : ''}`;
    }
    return `${path}: ${issue.message}`;
  });
  throw new MuxError('INVALID_ARGUMENTS', `invalid arguments for ${tool}: ${problems.join('; ')}`);
}

/** The field names of the object schema at `path` of `schema` (none when it is not an object there). */
function fieldsAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let at: unknown = schema;
  for (const key of path) {
    const shape = (at as { shape?: Record<string, unknown> }).shape;
    at = shape?.[String(key)];
    // An optional or defaulted field wraps its schema.
    while (at && typeof at === 'object' && 'unwrap' in at && typeof at.unwrap === 'function')
      at = (at as { unwrap: () => unknown }).unwrap();
  }
  const shape = (at as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape ? Object.keys(shape) : [];
}
