// The smallest self-hosted registry, as docs/tools.md gives it: the listing of its example,
// as one static file, served by a web server that knows nothing of MCP. find_servers finds
// its entry and add_server starts it (npx runs the package installed here, offline); a
// registry that cannot be read is named with what the person can do about it.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { startMcpmux, text } from '../helpers/mcpmux-process.js';
import { assertNoLeaks, killTaggedProcesses, waitFor } from '../helpers/processes.js';
import { answeringPerson, isReleaseForm, RELEASED } from '../helpers/person-forms.js';
import { startRemoteFixture } from '../helpers/remote-fixtures.js';
import { closedPort, installedVersion, runtimeBin } from '../helpers/attack-lab.js';

t.teardown(() => killTaggedProcesses());

const DOCS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'tools.md');

/** The JSON block docs/tools.md marks as a static registry's v0.1/servers. */
function documentedListing(): string {
  const found = /<!-- static registry: v0\.1\/servers -->\n```json\n([\s\S]*?)^```$/m.exec(
    readFileSync(DOCS, 'utf8'),
  );
  if (!found) throw new Error('docs/tools.md has no block marked <!-- static registry: v0.1/servers -->');
  return found[1]!;
}

t.test(
  "a static file served by any web server is a registry: the docs' example, found and run",
  async (t) => {
    const home = mkdtempSync(join(tmpdir(), 'mcpmux-static-registry-'));
    t.teardown(() => rmSync(home, { recursive: true, force: true }));
    const site = join(home, 'site');
    mkdirSync(join(site, 'v0.1'), { recursive: true });
    // The example names a version of the memory server; here it runs the one installed (npx offline).
    const installed = installedVersion('@modelcontextprotocol/server-memory');
    writeFileSync(join(site, 'v0.1', 'servers'), documentedListing().replaceAll('2026.8.31', installed));
    const web = await startRemoteFixture('static-files', { STATIC_ROOT: site });
    t.teardown(() => web.stop());
    const base = web.url;
    // The person releases what the agent adds from the registry (the form of a held server).
    const person = answeringPerson((form) => (isReleaseForm(form) ? RELEASED : { action: 'decline' }));
    const mux = await startMcpmux(['--registry', base], person.clientSide, {
      PATH: runtimeBin(home),
      XDG_CACHE_HOME: join(home, 'cache'),
      XDG_STATE_HOME: join(home, 'state'),
      npm_config_offline: 'true',
    });

    const found = (await mux.json('find_servers', { query: 'remember facts as a knowledge graph' })) as {
      servers: { registry: string; name: string; runs: string }[];
      problems?: string[];
    };
    t.equal(found.problems, undefined, 'the static listing reads as a registry');
    t.match(found.servers[0], {
      registry: base.replace(/^http:\/\//, ''),
      name: 'io.github.modelcontextprotocol/server-memory',
      runs: `npm @modelcontextprotocol/server-memory@${installed}`,
    });
    t.ok(
      await waitFor(() => /request GET \/v0\.1\/servers\?version=latest/.test(web.log())),
      'asked as the registry API asks',
    );

    const added = (await mux.json('add_server', {
      name: 'memory',
      registry: 'io.github.modelcontextprotocol/server-memory',
    })) as {
      server: { status: string; registry_entry: string };
      registry: string;
      tools: { name: string }[];
    };
    t.match(added, {
      server: { status: 'running', registry_entry: 'io.github.modelcontextprotocol/server-memory' },
      registry: base.replace(/^http:\/\//, ''),
    });
    t.match(
      person.forms.map((form) => form['message']),
      [/The agent added the MCP server 'memory', which runs: npx -y @modelcontextprotocol\/server-memory@/],
    );
    t.ok(
      added.tools.some((tool) => tool.name === 'memory__read_graph'),
      'its tools are listed, once the person released it',
    );
    t.match(text(await mux.call('memory__read_graph')), /entities/, 'and answer');

    await mux.client.close();
    await web.stop();
    await assertNoLeaks(t);
  },
);

t.test('no registry can be read: the error says to use --registry or --no-registry', async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'mcpmux-no-registry-'));
  t.teardown(() => rmSync(home, { recursive: true, force: true }));
  const down = `http://127.0.0.1:${await closedPort()}`;
  const mux = await startMcpmux(['--registry', down], undefined, {
    XDG_CACHE_HOME: join(home, 'cache'),
    XDG_STATE_HOME: join(home, 'state'),
  });
  for (const [tool, args] of [
    ['find_servers', { query: 'memory' }],
    ['add_server', { name: 'memory', registry: 'io.github.modelcontextprotocol/server-memory' }],
  ] as const) {
    const refused = await mux.call(tool, args);
    t.ok(refused.isError, tool);
    t.match(text(refused), `registry ${down} could not be read`, `${tool} names the registry`);
    t.match(
      text(refused),
      /--registry URL .*static v0\.1\/servers file.*--no-registry/,
      `${tool} says what to do`,
    );
  }
  await mux.client.close();
  await assertNoLeaks(t);
});
