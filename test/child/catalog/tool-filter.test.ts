// Tool filters: allow globs narrow, deny globs cut, on the child's own tool names.
import t from 'tap';
import { toolFilterPredicate } from '../../../src/child/catalog/tool-filter.js';
import { fixture, npmServerPath } from '../../helpers/fixtures.js';
import { startHarness, textOf } from '../../helpers/mux-harness.js';

t.test('the predicate', async (t) => {
  const keep = toolFilterPredicate({ allow: ['read_*', 'list'], deny: ['*_secret'] });
  t.same(['read_file', 'read_secret', 'list', 'write_file'].filter(keep), ['read_file', 'list']);
  t.same(['a', 'b'].filter(toolFilterPredicate({})), ['a', 'b'], 'no globs: everything');
  t.same(['a', 'b_x'].filter(toolFilterPredicate({ deny: ['b_*'] })), ['a'], 'deny alone');
});

t.test(
  'through mcpmux: a filtered tool is not listed, not callable, and the filter shows in list_servers',
  async (t) => {
    const h = await startHarness(t);
    const everything = {
      command: process.execPath,
      args: [npmServerPath('@modelcontextprotocol/server-everything'), 'stdio'],
    };
    const added = await h.callJson('add_server', {
      name: 'ev',
      ...everything,
      tools: { allow: ['echo', 'get-*'], deny: ['get-env'] },
    });
    const exposed = added.tools.map((x: { name: string }) => x.name);
    t.ok(exposed.includes('ev__echo') && exposed.includes('ev__get-sum'));
    t.notOk(exposed.includes('ev__get-env'), 'denied');
    t.notOk(exposed.includes('ev__toggle-simulated-logging'), 'not allowed');
    t.same(
      (await h.toolNames()).filter((n) => n.startsWith('ev__')),
      exposed,
      'tools/list agrees',
    );
    t.match(textOf(await h.call('ev__get-env')), /server 'ev' has no tool 'ev__get-env'.*\[TOOL_NOT_FOUND\]/);
    t.same((await h.callJson('list_servers')).servers[0].tool_filter, {
      allow: ['echo', 'get-*'],
      deny: ['get-env'],
    });
    const reloaded = await h.callJson('reload_server', { name: 'ev' });
    t.same(reloaded.changes, { added: [], removed: [], changed: [] }, 'the filter holds across a reload');
    const bad = await h.call('add_server', { name: 'x', ...fixture('echo-v1'), tools: { allow: 'echo' } });
    t.match(textOf(bad), /invalid arguments for add_server: tools\.allow: /);
    await h.close();
  },
);
