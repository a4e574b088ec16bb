// Docs that cannot rot: every relative link and anchor in README.md and docs/ (its tutorials too) resolves; every
// flag of `mcpmux --help` is in the CLI reference (docs/cli.md) and every flag documented there
// exists; every JSON example parses, a config example is accepted by mcpmux's config loader, and
// a tool call marked `<!-- tool call: NAME -->` by that tool's input schema; the README's two
// set-up commands are the ones .ci/run runs.
import { generateKeyPairSync } from 'node:crypto';
import { readdirSync, readFileSync, existsSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { parse as parseJsonc, type ParseError } from 'jsonc-parser';
import { OPTIONS } from '../../src/cli/cli-flags.js';
import { FLAG_HELP } from '../../src/cli/cli-help.js';
import { parseConfig } from '../../src/config/load-config.js';
import { createManagementTools } from '../../src/session/tools/management-tools.js';
import { createCodeModeTools } from '../../src/session/tools/code-mode-tools.js';
import { createAgentTools } from '../../src/session/tools/agent-tools.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const pages = [
  join(ROOT, 'README.md'),
  ...['docs', 'docs/tutorials'].flatMap((dir) =>
    readdirSync(join(ROOT, dir))
      .filter((name) => name.endsWith('.md'))
      .map((name) => join(ROOT, dir, name)),
  ),
];
const text = new Map(pages.map((page) => [page, readFileSync(page, 'utf8')]));
const shown = (page: string) => relative(ROOT, page);

/** The text outside fenced code blocks (links and headings there are not the page's). */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** GitHub's anchor for a heading: lower case, punctuation out, spaces to dashes. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]+>/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** A page's anchors, with GitHub's -1, -2 suffixes for repeated headings. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const [, heading] of prose(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const base = slug(heading!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  return found;
}

t.test('every relative link and anchor resolves', async (t) => {
  let checked = 0;
  for (const [page, markdown] of text) {
    for (const [, target] of prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (/^[a-z][a-z+.-]*:/i.test(target!)) continue; // https:, mailto:
      const [path, anchor] = target!.split('#') as [string, string | undefined];
      const file = path === '' ? page : resolve(dirname(page), decodeURIComponent(path));
      checked++;
      if (!existsSync(file)) {
        t.fail(`${shown(page)}: link to ${target}: no such file`);
        continue;
      }
      if (anchor === undefined || statSync(file).isDirectory() || !file.endsWith('.md')) continue;
      const markdownThere = text.get(file) ?? readFileSync(file, 'utf8');
      if (!anchors(markdownThere).has(anchor))
        t.fail(`${shown(page)}: link to ${target}: no heading #${anchor} in ${shown(file)}`);
    }
  }
  t.ok(checked > 50, `${checked} links checked`);
});

/** The flags a line names: --flag and -x forms. */
const flagsIn = (line: string) => [...line.matchAll(/(?<![\w-])--([a-z][a-z0-9-]*)/g)].map((m) => m[1]!);

t.test('every flag is documented in docs/cli.md, and every flag documented there exists', async (t) => {
  const known = new Set(Object.keys(OPTIONS));
  const inHelp = new Set(FLAG_HELP.flatMap(([flag]) => flagsIn(flag)));
  const table = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => line.split('|')[1]!);
  const documented = new Set(table.flatMap(flagsIn));
  for (const flag of known) {
    t.ok(inHelp.has(flag), `--${flag} is in mcpmux --help`);
    t.ok(documented.has(flag), `--${flag} is in docs/cli.md's table`);
  }
  for (const flag of documented) t.ok(known.has(flag), `--${flag} (docs/cli.md) is a flag of mcpmux`);
  for (const flag of inHelp)
    t.ok(known.has(flag) || flag === 'transport', `--${flag} (help) is a flag of mcpmux`);
});

const TOOLS = new Map(
  [...createManagementTools().values(), ...createCodeModeTools(), ...createAgentTools()].map((tool) => [
    tool.definition.name,
    tool,
  ]),
);

t.test('every JSON example parses; configs load, and marked tool calls fit their tool', async (t) => {
  let configs = 0;
  let calls = 0;
  for (const [page, markdown] of text) {
    for (const match of markdown.matchAll(
      /(?:<!-- tool call: ([a-z_]+) -->\n\n?)?```(json|jsonc)\n([\s\S]*?)^```$/gm,
    )) {
      const [, tool, language, body] = match;
      const where = `${shown(page)}:${markdown.slice(0, match.index).split('\n').length + (tool ? 1 : 0)}`;
      const errors: ParseError[] = [];
      const value: unknown =
        language === 'jsonc'
          ? parseJsonc(body!, errors, { allowTrailingComma: true })
          : (() => {
              try {
                return JSON.parse(body!);
              } catch (error) {
                errors.push({ error: 1, offset: 0, length: 0 });
                t.fail(`${where}: not JSON: ${(error as Error).message}`);
                return undefined;
              }
            })();
      if (language === 'jsonc' && errors.length > 0) t.fail(`${where}: not JSON with comments`);
      if (errors.length > 0 || typeof value !== 'object' || value === null) continue;
      if (isConfig(value)) {
        configs++;
        // ${VAR} references are the reader's to set: any name is given a value here (a PEM key where one is named).
        const env = new Proxy({} as Record<string, string>, {
          get: (_, name) => (String(name).endsWith('_PEM') ? PEM : `value-of-${String(name)}`),
        });
        try {
          parseConfig(value, where, env, () => undefined);
        } catch (error) {
          t.fail(`${where}: mcpmux's config loader refuses it: ${(error as Error).message}`);
        }
      }
      if (tool) {
        calls++;
        const definition = TOOLS.get(tool);
        if (!definition) {
          t.fail(`${where}: no tool named ${tool}`);
          continue;
        }
        const schema = definition.definition.inputSchema as {
          properties?: Record<string, unknown>;
          required?: string[];
        };
        // Written as the tools/call params ({name, arguments}) or as the arguments alone.
        const args = (
          'arguments' in value && (value as { name?: unknown }).name === tool
            ? (value as { arguments: object }).arguments
            : value
        ) as Record<string, unknown>;
        const unknownFields = Object.keys(args).filter((key) => !(key in (schema.properties ?? {})));
        t.same(unknownFields, [], `${where}: every field is one of ${tool}'s`);
        for (const required of schema.required ?? [])
          t.ok(required in args, `${where}: ${tool} needs ${required}`);
      }
    }
  }
  t.ok(configs >= 5, `${configs} config examples loaded`);
  t.ok(calls >= 3, `${calls} tool calls checked`);
});

/** A config file's shape: servers by name under mcpServers (or VS Code's servers), not a list. */
function isConfig(value: object): boolean {
  const servers =
    (value as { mcpServers?: unknown; servers?: unknown }).mcpServers ??
    (value as { servers?: unknown }).servers;
  return typeof servers === 'object' && servers !== null && !Array.isArray(servers);
}

const PEM = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
  type: 'pkcs8',
  format: 'pem',
}) as string;

t.test("the README's set-up commands are the ones .ci/run runs", async (t) => {
  const readme = text.get(join(ROOT, 'README.md'))!;
  const block = /## Quick start[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  const commands = block
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);
  t.equal(commands.length, 2, 'two set-up commands');
  const test = commands.find((command) => command.endsWith('npm test'));
  t.equal(test, 'npm ci && npm test', 'the test command installs from scratch, then runs npm test');
  const ci = readFileSync(join(ROOT, '.ci/run'), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('npm '));
  t.same(
    ci.map((line) => line.split(' ').slice(0, 2).join(' ')),
    ['npm ci', 'npm test'],
    '.ci/run installs with npm ci and runs npm test, as the README says',
  );
});
