// An agent extends itself from MCP registries through the built mcpmux: find_servers ranks a
// registry's entries (served on 127.0.0.1 in the registry API's shape, paged, with ETags) for
// a need in words, add_server {registry} starts one (npm packages installed here, run by npx
// offline; an OCI entry by a `docker` on mcpmux's PATH that runs the key-needing fixture), and
// the secret an entry needs is asked of the person by a form, reaches the server (which
// answers its hash), and is found in no message mcpmux writes, nor on its stderr.
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import t, { type Test } from 'tap';
import { DIST_MAIN, fixturePath } from '../helpers/fixtures.js';
import {
  mcpmuxStdioTransport,
  startMcpmux,
  startMcpmuxHttp,
  text,
  type Session,
  mcpmuxCommand,
} from '../helpers/mcpmux-process.js';
import { assertNoLeaks, killTaggedProcesses, taggedEnv, waitFor } from '../helpers/processes.js';
import { startRemoteFixture } from '../helpers/remote-fixtures.js';
import { closedPort, installedVersion, runtimeBin } from '../helpers/attack-lab.js';
import { isReleaseForm, RELEASED } from '../helpers/person-forms.js';

t.teardown(() => killTaggedProcesses());

const SECRET = `sk-test-${createHash('sha256').update(String(Math.random())).digest('hex').slice(0, 24)}`;
const REMOTE_SECRET = `rk-test-${createHash('sha256').update(String(Math.random())).digest('hex').slice(0, 24)}`;
const hashOf = (key: string) => `sha256:${createHash('sha256').update(key).digest('hex')}`;

const home = mkdtempSync(join(tmpdir(), 'mcpmux-registry-'));
t.teardown(() => rmSync(home, { recursive: true, force: true }));
// mcpmux's PATH: node and npx, and a `docker` that runs the key-needing fixture; no uvx.
const bin = runtimeBin(home);
writeFileSync(
  join(bin, 'docker'),
  `#!/bin/sh\n# Stands in for docker run -i --rm -e NAME… IMAGE: the variables are in the environment already.\nexec "${process.execPath}" "${fixturePath('needs-key')}"\n`,
);
chmodSync(join(bin, 'docker'), 0o755);

const muxEnv = {
  PATH: bin,
  XDG_CACHE_HOME: join(home, 'cache'),
  XDG_STATE_HOME: join(home, 'state'),
  // npx runs the packages installed here, and never asks the npm registry.
  npm_config_offline: 'true',
};

const stdio = (
  registryType: string,
  identifier: string,
  version: string,
  extra: Record<string, unknown> = {},
) => ({
  registryType,
  identifier,
  version,
  transport: { type: 'stdio' },
  ...extra,
});

t.test('find_servers and add_server {registry}, with the person giving the secrets', async (t) => {
  const remote = await startRemoteFixture('needs-key', { NEEDS_KEY_HTTP: '1' });
  t.teardown(() => remote.stop());
  const entries = [
    {
      server: {
        name: 'io.github.modelcontextprotocol/server-memory',
        title: 'Memory',
        description: 'Knowledge graph-based persistent memory system',
        version: installedVersion('@modelcontextprotocol/server-memory'),
        packages: [
          stdio(
            'npm',
            '@modelcontextprotocol/server-memory',
            installedVersion('@modelcontextprotocol/server-memory'),
          ),
        ],
      },
    },
    {
      server: {
        name: 'io.github.modelcontextprotocol/server-everything',
        title: 'Everything',
        description: 'MCP server that exercises all the features of the MCP protocol',
        version: installedVersion('@modelcontextprotocol/server-everything'),
        packages: [
          stdio(
            'npm',
            '@modelcontextprotocol/server-everything',
            installedVersion('@modelcontextprotocol/server-everything'),
          ),
        ],
      },
    },
    {
      server: {
        name: 'io.github.example/time',
        description: 'Time and timezone conversion capabilities',
        version: '0.6.2',
        packages: [stdio('pypi', 'mcp-server-time', '0.6.2')],
      },
    },
    {
      server: {
        name: 'io.github.example/keyed',
        title: 'Keyed',
        description: 'Answers questions about an account, with its API key',
        version: '1.0.0',
        packages: [
          stdio('oci', 'ghcr.io/example/keyed:1.0.0', '1.0.0', {
            environmentVariables: [
              {
                name: 'FIXTURE_API_KEY',
                description: 'Your Keyed API key',
                isRequired: true,
                isSecret: true,
              },
              { name: 'KEYED_REGION', description: 'Region', default: 'eu' },
            ],
          }),
        ],
      },
    },
    {
      server: {
        name: 'io.github.example/keyed-remote',
        description: 'The hosted Keyed service',
        version: '1.0.0',
        remotes: [
          {
            type: 'streamable-http',
            url: remote.url,
            headers: [
              { name: 'X-Api-Key', description: 'Your Keyed API key', isRequired: true, isSecret: true },
            ],
          },
        ],
      },
    },
  ];
  const entriesFile = join(home, 'entries.json');
  writeFileSync(entriesFile, JSON.stringify(entries));
  const registry = await startRemoteFixture('mcp-registry', { REGISTRY_ENTRIES: entriesFile });
  t.teardown(() => registry.stop());
  const down = `http://127.0.0.1:${await closedPort()}`;

  // The person: answers the form with the key (and keeps it when `keep`), or declines.
  const person = { answer: 'accept' as 'accept' | 'decline', key: SECRET, keep: true };
  const asked: { message: string; properties: Record<string, any>; required: string[] }[] = [];
  const answering = {
    capabilities: { elicitation: { form: {} } },
    setup: (client: Client) =>
      client.setRequestHandler('elicitation/create', (request) => {
        if (isReleaseForm(request.params)) return RELEASED as never;
        const params = request.params as any;
        asked.push({
          message: params.message,
          properties: params.requestedSchema.properties,
          required: params.requestedSchema.required,
        });
        if (person.answer === 'decline') return { action: 'decline' };
        const [name] = params.requestedSchema.required as string[];
        return { action: 'accept', content: { [name!]: person.key, keep_for_next_time: person.keep } };
      }),
  };
  const mux = await startMcpmux(
    ['--registry', registry.url, '--registry', down, '--pass-env', 'npm_config_offline'],
    answering,
    muxEnv,
  );
  t.teardown(() => mux.client.close());

  const found = await mux.json('find_servers', { query: 'remember facts as a knowledge graph' });
  t.equal(found.servers[0].name, 'io.github.modelcontextprotocol/server-memory');
  t.match(found.servers[0], {
    registry: registry.url.replace('http://', ''),
    title: 'Memory',
    runs: `npm @modelcontextprotocol/server-memory@${installedVersion('@modelcontextprotocol/server-memory')}`,
  });
  t.match(
    found.problems,
    [new RegExp(`^registry ${down} could not be read: fetch failed \\(ECONNREFUSED\\)$`)],
    'the registry that is down is named',
  );
  // The listing was read whole, page by page (two entries a page), and is kept: a second search reads the disk.
  const pages = () => registry.log().match(/request GET \/v0\.1\/servers\?/g)?.length ?? 0;
  t.equal(pages(), 3);
  const keyed = (await mux.json('find_servers', { query: 'account API key' })).servers.find(
    (s: any) => s.name === 'io.github.example/keyed',
  );
  t.same(keyed.env, [
    { name: 'FIXTURE_API_KEY', description: 'Your Keyed API key', required: true, secret: true },
    { name: 'KEYED_REGION', description: 'Region', required: false, secret: false, default: 'eu' },
  ]);
  t.equal(keyed.runs, 'OCI ghcr.io/example/keyed:1.0.0');
  t.equal(pages(), 3, 'the kept listing answered');

  // An npm entry starts, and its tools answer.
  const memory = await mux.json('add_server', {
    name: 'memory',
    registry: 'io.github.modelcontextprotocol/server-memory',
  });
  t.equal(memory.server.registry_entry, 'io.github.modelcontextprotocol/server-memory');
  t.ok(memory.tools.some((tool: any) => tool.name === 'memory__read_graph'));
  t.match(text(await mux.call('memory__read_graph')), /entities/);
  t.same(
    (await mux.json('find_servers', { query: 'knowledge graph memory' })).servers[0].running_as,
    ['memory'],
    'a hit says it runs here already',
  );
  t.match(
    await matchAudit(mux, 'memory'),
    /registry_entry="io\.github\.modelcontextprotocol\/server-memory"/,
  );

  // The model may not pass a secret; it is told what the person can configure instead.
  const fromModel = await mux.call('add_server', {
    name: 'keyed',
    registry: 'io.github.example/keyed',
    env: { FIXTURE_API_KEY: 'the-model-guessed-this' },
  });
  t.ok(fromModel.isError);
  t.match(
    text(fromModel),
    /FIXTURE_API_KEY of registry entry 'io\.github\.example\/keyed' \(OCI ghcr\.io\/example\/keyed:1\.0\.0\) is a secret.*--allow-model-secrets/,
  );
  t.match(text(fromModel), /"FIXTURE_API_KEY":"\$\{FIXTURE_API_KEY\}"/);
  t.notMatch(text(fromModel), /the-model-guessed-this/);
  t.equal(asked.length, 0);

  // A missing runtime is named with what to install, before the person is asked anything.
  const time = await mux.call('add_server', { name: 'time', registry: 'io.github.example/time' });
  t.ok(time.isError);
  t.match(
    text(time),
    /registry entry 'io\.github\.example\/time' \(PyPI mcp-server-time==0\.6\.2\) runs through uvx, which is not on mcpmux's PATH: install uv/,
  );

  // Declined: the add fails, nothing runs.
  person.answer = 'decline';
  const declined = await mux.call('add_server', { name: 'keyed', registry: 'io.github.example/keyed' });
  t.ok(declined.isError);
  t.match(text(declined), /declined the form for FIXTURE_API_KEY .*nothing was started/);
  t.notOk((await mux.json('list_servers')).servers.some((s: any) => s.name === 'keyed'));
  t.equal(asked.length, 1);
  t.match(
    asked[0]!.message,
    /Keyed, io\.github\.example\/keyed \(OCI ghcr\.io\/example\/keyed:1\.0\.0\), which needs FIXTURE_API_KEY/,
  );
  t.match(asked[0]!.properties['FIXTURE_API_KEY'], { type: 'string', description: /^Your Keyed API key/ });
  t.match(asked[0]!.properties['keep_for_next_time'], { type: 'boolean', default: false });
  t.same(asked[0]!.required, ['FIXTURE_API_KEY']);

  // Accepted and kept: the key reaches the server, which answers its hash.
  person.answer = 'accept';
  const added = await mux.json('add_server', { name: 'keyed', registry: 'io.github.example/keyed' });
  t.same(added.server.env, ['FIXTURE_API_KEY', 'KEYED_REGION'], 'list_servers shows names, never values');
  t.equal(text(await mux.call('keyed__key_hash')), hashOf(SECRET));
  const kept = join(home, 'state', 'mcpmux', 'secrets');
  t.equal(statSync(kept).mode & 0o777, 0o700);
  const [keptFile] = spawnSync('ls', [kept], { encoding: 'utf8' }).stdout.trim().split('\n');
  t.equal(statSync(join(kept, keptFile!)).mode & 0o777, 0o600);

  // A remote entry's secret header, not kept.
  person.key = REMOTE_SECRET;
  person.keep = false;
  const remoteAdded = await mux.json('add_server', {
    name: 'hosted',
    registry: 'io.github.example/keyed-remote',
  });
  t.same(remoteAdded.server.headers, ['X-Api-Key']);
  t.equal(text(await mux.call('hosted__key_hash')), hashOf(REMOTE_SECRET));
  t.equal(
    spawnSync('ls', [kept], { encoding: 'utf8' }).stdout.trim().split('\n').length,
    1,
    'only the kept one is kept',
  );

  await mux.json('list_servers');
  await mux.client.close();
  assertNowhere(t, mux, [SECRET, REMOTE_SECRET]);
  await registry.stop();
  await remote.stop();
  await assertNoLeaks(t);
});

t.test('a kept secret serves the next start, persist refers to it, and forget removes it', async (t) => {
  const registry = await keyedRegistry('entries-kept.json');
  t.teardown(() => registry.stop());
  const state = join(home, 'kept-state');
  const env = { ...muxEnv, XDG_STATE_HOME: state };
  // The person keeps the key at the first start, asked through a 2026-07-28 client's rounds…
  const modern = new Client(
    { name: 'modern', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  let askedModern = 0;
  modern.setRequestHandler('elicitation/create', (request) => {
    if (isReleaseForm(request.params)) return RELEASED as never;
    askedModern++;
    return { action: 'accept', content: { FIXTURE_API_KEY: SECRET, keep_for_next_time: true } };
  });
  const firstStdio = mcpmuxStdioTransport(['--registry', registry.url], env);
  const firstOut: string[] = [];
  await modern.connect(firstStdio.transport);
  firstStdio.transport.onmessage = ((deliver) => (message) => {
    firstOut.push(JSON.stringify(message));
    deliver?.(message);
  })(firstStdio.transport.onmessage);
  const first = (await modern.callTool({
    name: 'add_server',
    arguments: { name: 'keyed', registry: 'io.github.example/keyed' },
  })) as CallToolResult;
  t.notOk(first.isError, text(first));
  t.equal(askedModern, 1, 'asked once, within the call');
  t.equal(
    text((await modern.callTool({ name: 'keyed__key_hash', arguments: {} })) as CallToolResult),
    hashOf(SECRET),
  );
  await modern.close();
  t.equal(
    [...firstOut, firstStdio.stderr()].join('\n').indexOf(SECRET),
    -1,
    'the secret is in no message and no log line',
  );
  // …and at the next, a client that cannot ask anyone starts it from what was kept, and persists it.
  const config = join(home, 'servers.json');
  writeFileSync(config, JSON.stringify({ mcpServers: {} }));
  const second = await startMcpmux(['--registry', registry.url, '--config', config], undefined, env);
  const persisted = await second.json('add_server', {
    name: 'keyed',
    registry: 'io.github.example/keyed',
    persist: true,
  });
  t.equal(persisted.persisted_to, config);
  t.equal(text(await second.call('keyed__key_hash')), hashOf(SECRET));
  const written = readFileSync(config, 'utf8');
  t.match(written, /"FIXTURE_API_KEY": "\$\{secret:io\.github\.example\/keyed\/FIXTURE_API_KEY\}"/);
  t.notMatch(written, SECRET);
  await second.client.close();
  assertNowhere(t, second, [SECRET]);

  // The persisted entry starts again from the config alone, its secret read from the store.
  const third = await startMcpmux(['--no-registry', '--config', config], undefined, env);
  t.equal(text(await third.call('keyed__key_hash')), hashOf(SECRET));
  t.notOk(
    (await third.client.listTools()).tools.some((tool) => tool.name === 'find_servers'),
    '--no-registry: no find_servers',
  );
  await third.client.close();

  const secrets = (...args: string[]) =>
    spawnSync(process.execPath, [DIST_MAIN, 'secrets', ...args], { env: taggedEnv(env), encoding: 'utf8' });
  const listed = secrets('list');
  t.equal(listed.status, 0);
  t.equal(
    listed.stdout,
    `io.github.example/keyed (${registry.url.replace('http://', '')}): FIXTURE_API_KEY\n`,
  );
  t.equal(
    secrets('forget', 'io.github.example/keyed').stdout,
    'forgot 1 secret(s) of io.github.example/keyed\n',
  );
  t.equal(secrets('forget', 'io.github.example/keyed').status, 1);
  t.equal(secrets('list').stdout, `no secrets are kept (${join(state, 'mcpmux', 'secrets')})\n`);
  // Forgotten: the server that refers to it waits for it (and is not started), saying why.
  const waiting = spawnSync(process.execPath, [DIST_MAIN, '--config', config], {
    env: taggedEnv(env),
    encoding: 'utf8',
    input: '',
  });
  t.equal(waiting.status, 0, 'mcpmux serves, and ends with its input');
  t.match(
    waiting.stderr,
    /server 'keyed' waits for its configuration: env\.FIXTURE_API_KEY: \$\{secret:io\.github\.example\/keyed\/FIXTURE_API_KEY\}: no secret FIXTURE_API_KEY is kept for io\.github\.example\/keyed/,
  );
  t.notMatch(waiting.stderr, /failed to start/);
  await registry.stop();
  await assertNoLeaks(t);
});

t.test('an entry is judged by --allow-command as a typed command is', async (t) => {
  const version = installedVersion('@modelcontextprotocol/server-everything');
  const entries = [
    {
      server: {
        name: 'io.github.modelcontextprotocol/server-everything',
        description: 'MCP server that exercises all the features of the MCP protocol',
        version,
        packages: [stdio('npm', '@modelcontextprotocol/server-everything', version)],
      },
    },
    {
      server: {
        name: 'io.github.someone/lookalike',
        description: 'A package of another scope',
        version: '1.0.0',
        packages: [stdio('npm', '@someone/server-everything', '1.0.0')],
      },
    },
  ];
  const entriesFile = join(home, 'entries-policy.json');
  writeFileSync(entriesFile, JSON.stringify(entries));
  const registry = await startRemoteFixture('mcp-registry', { REGISTRY_ENTRIES: entriesFile });
  t.teardown(() => registry.stop());
  const mux = await startMcpmux(
    [
      '--registry',
      registry.url,
      '--allow-command',
      'npx -y @modelcontextprotocol/*',
      '--pass-env',
      'npm_config_offline',
    ],
    undefined,
    muxEnv,
  );
  const refused = await mux.call('add_server', {
    name: 'lookalike',
    registry: 'io.github.someone/lookalike',
  });
  t.ok(refused.isError);
  t.match(
    text(refused),
    /command 'npx -y @someone\/server-everything@1\.0\.0' \(it runs .*\) is not allowed by --allow-command \(allowed: npx -y @modelcontextprotocol\/\*\)/,
  );
  const everything = await mux.json('add_server', {
    name: 'everything',
    registry: 'io.github.modelcontextprotocol/server-everything',
  });
  // A registry entry is strangers' code: held for a person, who releases it from a terminal.
  t.same(everything.tools, []);
  t.equal(everything.trust.state, 'held');
  t.match(await mcpmuxCommand(muxEnv, 'approve', 'everything'), { code: 0 });
  t.ok(
    await waitFor(async () =>
      (await mux.client.listTools()).tools.some((tool) => tool.name === 'everything__echo'),
    ),
    'released',
  );
  await mux.client.close();
  await registry.stop();
  await assertNoLeaks(t);
});

t.test('over HTTP, a 2025 session is asked for the secret on its own request stream', async (t) => {
  const registry = await keyedRegistry('entries-http.json');
  t.teardown(() => registry.stop());
  const mux = await startMcpmuxHttp(['--registry', registry.url], {
    env: { ...muxEnv, XDG_STATE_HOME: join(home, 'http-state') },
  });
  const client = new Client(
    { name: 'http-person', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  let asked = 0;
  client.setRequestHandler('elicitation/create', (request) => {
    if (isReleaseForm(request.params)) return RELEASED as never;
    asked++;
    return { action: 'accept', content: { FIXTURE_API_KEY: SECRET } };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(mux.url)));
  const added = (await client.callTool({
    name: 'add_server',
    arguments: { name: 'keyed', registry: 'io.github.example/keyed' },
  })) as CallToolResult;
  t.notOk(added.isError, text(added));
  t.equal(asked, 1);
  t.equal(
    text((await client.callTool({ name: 'keyed__key_hash', arguments: {} })) as CallToolResult),
    hashOf(SECRET),
  );
  await client.close();
  await mux.stop();
  t.equal(mux.stderr().indexOf(SECRET), -1, 'not on stderr');
  await registry.stop();
  await assertNoLeaks(t);
});

/** A registry that lists one entry: the OCI keyed fixture, whose FIXTURE_API_KEY is required and secret. */
async function keyedRegistry(file: string) {
  const entries = [
    {
      server: {
        name: 'io.github.example/keyed',
        description: 'Answers questions about an account, with its API key',
        version: '1.0.0',
        packages: [
          stdio('oci', 'ghcr.io/example/keyed:1.0.0', '1.0.0', {
            environmentVariables: [{ name: 'FIXTURE_API_KEY', isRequired: true, isSecret: true }],
          }),
        ],
      },
    },
  ];
  writeFileSync(join(home, file), JSON.stringify(entries));
  return startRemoteFixture('mcp-registry', { REGISTRY_ENTRIES: join(home, file) });
}

/** A port on 127.0.0.1 that nothing listens on (it was free a moment ago). */

/** The audit line of `server`'s spawn, once it is on stderr. */
async function matchAudit(mux: Session, server: string): Promise<string> {
  const pattern = new RegExp(`spawn server=${server} [^\\n]*`);
  for (let i = 0; i < 100 && !pattern.test(mux.stderr()); i++) await new Promise((r) => setTimeout(r, 20));
  return pattern.exec(mux.stderr())?.[0] ?? '';
}

/** None of `secrets` is in anything mcpmux wrote: its messages to the client (results, notifications, requests) and its stderr. */
function assertNowhere(t: Test, mux: Session, secrets: string[]): void {
  const written = [...mux.stdoutLines, mux.stderr()].join('\n');
  for (const secret of secrets)
    t.equal(written.indexOf(secret), -1, 'the secret is in no message and no log line');
  t.ok(mux.stdoutLines.length > 3, 'messages were written');
}
