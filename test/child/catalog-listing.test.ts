// A server's list pages must end. One that ends them with null or "" is taken at its word;
// one that gives a cursor again, or pages without end, has its list cut there and said so,
// where mcpmux used to ask for the same page for as long as the start-up allowed, holding
// every copy (45,000 pages in 6 s).
import t from 'tap';
import { MAX_LIST_PAGES } from '../../src/child/catalog-listing.js';
import { fixturePath } from '../helpers/fixtures.js';
import { startHarness } from '../helpers/mux-harness.js';

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
