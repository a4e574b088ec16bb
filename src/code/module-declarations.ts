// Typed wrappers for code mode: for each running server, TypeScript declarations of
// `tools.<server>.<tool>(args)` made from the tools' input and output schemas with
// json-schema-to-typescript, each tool's description as its doc comment. A model reads only
// the module of the server it needs (read_module). Generated when asked for, from the current
// children's snapshot, and cached by a hash of the server's tools: a reload with new tools
// gives new declarations at once, an unchanged server costs nothing.
import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/server';
import { compile, type JSONSchema } from 'json-schema-to-typescript';
import { stableStringify } from '../children/catalog-diff.js';

/** What every module relies on: declared once, shown at the top of each. */
export { MODULE_PRELUDE } from './code-mode-limits.js';

const OPTIONS = {
  bannerComment: '',
  format: true,
  additionalProperties: false,
  // Never follow a $ref out of the schema: a child's schema must not make mcpmux read files or the network.
  $refOptions: { resolve: { external: false, file: false, http: false } },
} as const;

/** One tool in TypeScript: the types of its arguments and result, and its member of the server's interface. */
export interface ToolDeclaration {
  types: string;
  /** `name(args: XArgs): Promise<XResult>;` with the description as its doc comment. */
  member: string;
  /** The same as a call, for a search hit: `tools.server.name(args: XArgs): Promise<XResult>`. */
  call: string;
}

export class ModuleDeclarations {
  readonly #cache = new Map<string, Promise<ToolDeclaration>>();

  /**
   * The declarations of one server's tools (the server's own tool names), as read_module shows
   * them; `total` says how many the server has when only some are shown.
   */
  async module(server: string, tools: readonly Tool[], total = tools.length): Promise<string> {
    const declared = await Promise.all(tools.map((tool) => this.tool(server, tool)));
    const face = `${pascal(server)}Tools`;
    const count = `${tools.length === total ? '' : `${tools.length} of `}${total} tool${total === 1 ? '' : 's'}`;
    return [
      `// Server '${server}': ${count}, called as tools${access(server)}.<tool>(args).`,
      ...declared.map((d) => d.types),
      `interface ${face} {\n${declared.map((d) => d.member).join('\n')}\n}`,
      `interface Tools {\n  ${propertyKey(server)}: ${face};\n}`,
    ].join('\n\n');
  }

  /** One tool's declaration, cached by the server's name and the tool's whole definition. */
  tool(server: string, tool: Tool): Promise<ToolDeclaration> {
    const key = createHash('sha256').update(server).update('\0').update(stableStringify(tool)).digest('hex');
    let cached = this.#cache.get(key);
    if (!cached) {
      cached = declare(server, tool);
      this.#cache.set(key, cached);
      // Bounded: the oldest entries (often old versions of reloaded tools) leave first.
      if (this.#cache.size > 5_000) this.#cache.delete(this.#cache.keys().next().value!);
    }
    return cached;
  }
}

async function declare(server: string, tool: Tool): Promise<ToolDeclaration> {
  const base = pascal(server) + pascal(tool.name);
  const args = await typeOf(tool.inputSchema, `${base}Args`);
  const output = tool.outputSchema ? await typeOf(tool.outputSchema, `${base}Result`) : undefined;
  const optional = (tool.inputSchema.required ?? []).length === 0 ? '?' : '';
  const signature = `(args${optional}: ${args.name}): Promise<${output?.name ?? 'unknown'}>`;
  return {
    types: output ? `${args.text}\n\n${output.text}` : args.text,
    member: `${docComment(tool.description, '  ')}  ${propertyKey(tool.name)}${signature};`,
    call: `tools${access(server)}${access(tool.name)}${signature}`,
  };
}

/** A named type for a schema; a schema the generator cannot read becomes an open object, with the reason. */
async function typeOf(schema: object, name: string): Promise<{ name: string; text: string }> {
  try {
    const text = await compile(structuredClone(schema) as JSONSchema, name, { ...OPTIONS });
    return { name, text: text.replace(/^export /gm, '').trim() };
  } catch (error) {
    const why = String((error as Error).message ?? error).split('\n')[0];
    return {
      name,
      text: `// The schema of ${name} could not be turned into a type (${why}).\ntype ${name} = Record<string, unknown>;`,
    };
  }
}

function docComment(description: string | undefined, indent: string): string {
  if (!description?.trim()) return '';
  const lines = description.trim().replaceAll('*/', '* /').split('\n');
  return `${indent}/**\n${lines.map((line) => `${indent} * ${line}`.trimEnd()).join('\n')}\n${indent} */\n`;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const propertyKey = (name: string) => (IDENTIFIER.test(name) ? name : JSON.stringify(name));
export const access = (name: string) => (IDENTIFIER.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`);

function pascal(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('')
    .replace(/^(?=[0-9])/, '_');
}
