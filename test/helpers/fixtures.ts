// Paths to the fixture servers in testservers/ and to real servers installed from npm.
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StdioServerSpec } from '../../src/child/server-spec.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const DIST_MAIN = join(ROOT, 'dist/main.js');
const require = createRequire(import.meta.url);

export type FixtureName =
  | 'echo-v1'
  | 'echo-v2'
  | 'crash-on-call'
  | 'closes-stdout'
  | 'closes-stdin'
  | 'pretty-prints'
  | 'no-newline'
  | 'no-jsonrpc'
  | 'buffers-output'
  | 'asks-on-start'
  | 'hang-on-shutdown'
  | 'slow-start'
  | 'noisy-stdout'
  | 'list-changed'
  | 'grandchild'
  | 'slow-call'
  | 'many-tools'
  | 'exit-on-start'
  | 'silent'
  | 'freeze'
  | 'asks-client'
  | 'tools-from-file'
  | 'described-tools'
  | 'build-tools'
  | 'big-result'
  | 'partial-catalog'
  | 'malformed-items'
  | 'wrong-version'
  | 'catalog-replay'
  | 'tracks-subscriptions'
  | 'modern-v2'
  | 'omits-result-type'
  | 'python-shape'
  | 'modern-http'
  | 'exit-on-discover'
  | 'list-storm'
  | 'log-flood'
  | 'app-server'
  | 'oauth-server'
  | 'idp-server'
  | 'bad-pages'
  | 'deep-json'
  | 'http-faults'
  | 'task-tools'
  | 'bad-answers'
  | 'mcp-registry'
  | 'needs-key'
  | 'echo-meta'
  | 'static-files'
  | 'sandbox-probe';

export const fixturePath = (name: FixtureName): string => join(ROOT, 'testservers', `${name}.js`);

/** add_server arguments that run a fixture server with this Node. */
export function fixture(name: FixtureName): { command: string; args: string[] } {
  return { command: process.execPath, args: [fixturePath(name)] };
}

/** The same as an internal spec, for tests below the proxy. */
export function fixtureSpec(name: FixtureName, env: Record<string, string> = {}): StdioServerSpec {
  return { transport: 'stdio', ...fixture(name), env };
}

/** The entry script of an MCP server package installed as a devDependency. */
export function npmServerPath(
  pkg:
    | '@modelcontextprotocol/server-everything'
    | '@modelcontextprotocol/server-memory'
    | '@modelcontextprotocol/server-basic-vanillajs',
): string {
  // A package whose exports hide package.json is where npm puts a devDependency: at the top.
  let dir = join(ROOT, 'node_modules', pkg);
  try {
    dir = dirname(require.resolve(`${pkg}/package.json`));
  } catch {}
  return join(dir, 'dist/index.js');
}
