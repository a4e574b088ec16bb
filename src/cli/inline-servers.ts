// Servers given on the command line after `--`, as wrapper servers' configs write them.
import type { ServerSpec } from '../child/server-spec.js';
import { serverNameProblem } from '../router/tool-names.js';
import { CliError, type InlineServer } from './cli-options.js';

/**
 * Servers given inline, in the forms wrapper servers' configs use: `NAME CMD ARGS…`,
 * `NAME -- CMD ARGS…` (a lone name takes the next group as its command), and remote servers
 * `NAME --transport http URL [-H "Header: value"]…`. Otherwise `--` separates servers.
 */
export function parseInlineServers(args: readonly string[], maxToolName: number): InlineServer[] {
  const groups: string[][] = [[]];
  for (const arg of args) {
    if (arg === '--') groups.push([]);
    else groups[groups.length - 1]!.push(arg);
  }
  const seen = new Set<string>();
  const servers: InlineServer[] = [];
  for (let i = 0; i < groups.length; i++) {
    let group = groups[i]!;
    const number = servers.length + 1;
    if (group.length === 1 && i + 1 < groups.length) group = [group[0]!, ...groups[++i]!];
    const [name, first, ...rest] = group;
    if (name === undefined || first === undefined) {
      throw new CliError(
        `inline server #${number} needs a name and a command: -- NAME CMD [ARGS…], -- NAME -- CMD [ARGS…] or -- NAME --transport http URL`,
      );
    }
    const problem = serverNameProblem(name, maxToolName);
    if (problem) throw new CliError(`inline server: ${problem}`);
    if (seen.has(name)) throw new CliError(`inline server name '${name}' is given twice`);
    seen.add(name);
    servers.push({
      name,
      spec: first === '--transport' ? inlineTransport(name, rest) : stdioSpec(first, rest),
    });
  }
  return servers;
}

const stdioSpec = (command: string, args: string[]): ServerSpec => ({
  transport: 'stdio',
  command,
  args,
  env: {},
});

/** `--transport http|sse URL [-H "Name: value"]…`, or `--transport stdio CMD ARGS…`. */
function inlineTransport(name: string, words: readonly string[]): ServerSpec {
  const [transport, target, ...rest] = words;
  if (transport === 'stdio') {
    if (target === undefined)
      throw new CliError(`inline server '${name}': --transport stdio needs a command`);
    return stdioSpec(target, rest);
  }
  if (transport !== 'http' && transport !== 'sse' && transport !== 'streamable-http')
    throw new CliError(
      `inline server '${name}': --transport must be http, sse or stdio, not ${transport === undefined ? 'nothing' : `'${transport}'`}`,
    );
  if (target === undefined || !URL.canParse(target) || !/^https?:$/.test(new URL(target).protocol))
    throw new CliError(
      `inline server '${name}': --transport ${transport} needs the server's http(s) URL, like https://mcp.example.com/mcp`,
    );
  const headers: Record<string, string> = {};
  for (let i = 0; i < rest.length; i += 2) {
    const flag = rest[i]!;
    const value = rest[i + 1];
    if (flag !== '-H' && flag !== '--header')
      throw new CliError(
        `inline server '${name}': after the URL only -H "Name: value" may follow, not '${flag}'`,
      );
    const colon = value?.indexOf(':') ?? -1;
    const header = colon > 0 ? value!.slice(0, colon).trim() : '';
    // The value is a secret (a token, most often): the error names the header only.
    if (value === undefined || header === '' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(header))
      throw new CliError(
        `inline server '${name}': ${flag} takes "Name: value", like -H "Authorization: Bearer …"`,
      );
    headers[header] = value!.slice(colon + 1).trim();
  }
  return { transport: 'http', url: target, headers };
}
