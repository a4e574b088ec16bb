// A server's list pages must end. One that ends them with null or "" is taken at its word;
// one that gives a cursor again, or pages without end, has its list cut there and said so,
// where mcpmux used to ask for the same page for as long as the start-up allowed, holding
// every copy (45,000 pages in 6 s).
import t from 'tap';
import type { Client } from '@modelcontextprotocol/client';
import { MAX_LIST_PAGES, relistRows } from '../../../src/child/catalog/catalog-listing.js';
import { silentLogger } from '../../../src/common/log.js';
import { CAPABILITY_TABLE, type Catalog } from '../../../src/protocol/capabilities.js';
import { fixturePath } from '../../helpers/fixtures.js';
import { startHarness } from '../../helpers/mux-harness.js';

const badPages = (mode: string) => ({ command: process.execPath, args: [fixturePath('bad-pages'), mode] });

for (const mode of ['null', 'empty']) {
  t.test(`a nextCursor of ${mode === 'null' ? 'null' : '""'} ends the list`, async (t) => {
    const h = await startHarness(t);
    const added = (await h.callJson('add_server', { name: 'pages', ...badPages(mode) })) as {
      server: { status: string };
      tools: { name: string }[];
    };
    t.equal(added.server.status, 'running');
    t.same(
      added.tools.map((tool) => tool.name),
      ['pages__first', 'pages__second'],
    );
    t.notMatch(h.logs.join('\n'), /is cut/, 'nothing to warn of');
    await h.close();
  });
}

t.test('a cursor given again cuts the list there, and says so', async (t) => {
  const h = await startHarness(t);
  const added = (await h.callJson('add_server', { name: 'pages', ...badPages('repeat') })) as {
    server: { status: string };
    tools: { name: string }[];
  };
  t.equal(added.server.status, 'running', 'the server runs with what it listed');
  t.same(
    added.tools.map((tool) => tool.name),
    ['pages__first', 'pages__again_2'],
    'each page once',
  );
  t.match(
    h.logs.join('\n'),
    /\[pages\] tools\/list: the server gave the cursor "second" again; the list is cut at 2 tools/,
  );
  await h.close();
});

t.test(`pages without end are cut after ${MAX_LIST_PAGES}`, async (t) => {
  const h = await startHarness(t);
  const added = (await h.callJson('add_server', { name: 'pages', ...badPages('endless') })) as {
    server: { status: string };
    tools: { name: string }[];
  };
  t.equal(added.server.status, 'running');
  t.same(
    added.tools.map((tool) => tool.name),
    ['pages__first'],
  );
  t.match(h.logs.join('\n'), `the server has given ${MAX_LIST_PAGES} pages; the list is cut at 1 tools`);
  await h.close();
});

t.test(
  'a re-list that fails warns while its server runs, and only logs at debug once it stopped',
  async (t) => {
    // A stand-in for the SDK client whose request fails, as a connection closing under it does.
    const client = {
      getServerCapabilities: () => ({ tools: {} }),
      request: () => Promise.reject(new Error('Connection closed')),
    } as unknown as Client;
    const catalog = { tools: [], prompts: [], resources: [], resourceTemplates: [] } as unknown as Catalog;
    for (const [running, level] of [
      [true, 'warn'],
      [false, 'debug'],
    ] as const) {
      const lines: string[] = [];
      const logger = {
        ...silentLogger,
        warn: (m: string) => void lines.push(`warn ${m}`),
        debug: (m: string | (() => string)) => void lines.push(`debug ${typeof m === 'function' ? m() : m}`),
      };
      let calls = 0;
      // The generation runs when the re-list starts; it has stopped, or not, by the time it fails.
      const current = () => (calls++ === 0 || running ? catalog : undefined);
      const options = {
        name: 'srv',
        toolFilter: undefined,
        logger,
        signal: new AbortController().signal,
        timeout: 1000,
      };
      await relistRows(client, [CAPABILITY_TABLE.tools], current, options, () => t.fail('nothing committed'));
      t.same(lines, [`${level} [srv] re-listing tools after list_changed failed: Connection closed`]);
    }
  },
);
