// MCP Apps through mcpmux: an app's UI calls its server's tools by their own names, and
// names its view by a ui:// URI that two servers may share. Real processes: the built
// mcpmux, two instances of a fixture app that use the same URI, and the ext-apps example
// server from npm (@modelcontextprotocol/server-basic-vanillajs).
import type { Tool } from '@modelcontextprotocol/client';
import t from 'tap';
import { fixture, npmServerPath } from '../helpers/fixtures.js';
import { startMcpmux, text } from '../helpers/mcpmux-process.js';
import { assertNoLeaks, killTaggedProcesses, waitFor } from '../helpers/processes.js';

t.teardown(killTaggedProcesses);

const uiOf = (tool: Tool | undefined) => ({
  ui: (tool?._meta?.['ui'] as { resourceUri?: string } | undefined)?.resourceUri,
  old: tool?._meta?.['ui/resourceUri'],
});

t.test(
  'two app servers share a ui:// URI: each tool names its own view, and calls by own name route',
  async (t) => {
    const s = await startMcpmux();
    const app = (greeting: string) => ({ ...fixture('app-server'), env: { APP_GREETING: greeting } });
    await s.json('add_server', { name: 'a', ...app('hello from a') });
    await s.json('add_server', { name: 'b', ...app('hello from b') });
    await s.json('add_server', {
      name: 'clock',
      command: process.execPath,
      args: [npmServerPath('@modelcontextprotocol/server-basic-vanillajs'), '--stdio'],
    });

    const tools = async () => new Map((await s.client.listTools()).tools.map((tool) => [tool.name, tool]));
    let listed = await tools();
    t.same(
      uiOf(listed.get('a__show-greeting')),
      {
        ui: 'mcpmux://a/ui://greeting/view.html',
        old: 'mcpmux://a/ui://greeting/view.html',
      },
      "a shared URI is rewritten in the tool's _meta under both keys, as resources/list rewrites it",
    );
    t.same(uiOf(listed.get('b__show-greeting')).ui, 'mcpmux://b/ui://greeting/view.html');
    t.same(
      uiOf(listed.get('clock__get-time')).ui,
      'ui://get-time/mcp-app.html',
      'a URI no other server has stays',
    );
    const resources = (await s.client.listResources()).resources.map((r) => r.uri);
    t.ok(
      resources.includes('mcpmux://a/ui://greeting/view.html') &&
        resources.includes('mcpmux://b/ui://greeting/view.html'),
    );

    for (const server of ['a', 'b']) {
      const uri = uiOf(listed.get(`${server}__show-greeting`)).ui!;
      const read = await s.client.readResource({ uri });
      t.match(read.contents[0], { uri, text: `<p>hello from ${server}</p>` }, `${server}'s view is its own`);
    }
    const view = await s.client.readResource({ uri: 'ui://get-time/mcp-app.html' });
    t.match(
      (view.contents[0] as { text: string }).text,
      /<html/i,
      "the npm app's view is read by its own URI",
    );

    // The UI of the clock app calls get-time, its server's own name for it.
    const time = await s.client.callTool({ name: 'get-time', arguments: {} });
    t.notOk(
      time.isError,
      `a call by the own name of a tool one server has reaches it: ${JSON.stringify(time.content)}`,
    );
    t.match(text(time as never), /\d{4}-\d{2}-\d{2}|:\d{2}/, 'and answers the time');
    const viaCallTool = await s.call('call_tool', { name: 'get-time', arguments: {} });
    t.notOk(viaCallTool.isError, 'through call_tool too');

    const shared = await s.client.callTool({ name: 'show-greeting', arguments: {} });
    t.ok(shared.isError, 'a name two servers have is not guessed');
    t.match(
      text(shared as never),
      /tool 'show-greeting' is on 2 servers \(a, b\); call it by its exposed name: 'a__show-greeting' or 'b__show-greeting'/,
    );

    await s.json('remove_server', { name: 'b' });
    t.equal(
      text((await s.client.callTool({ name: 'show-greeting', arguments: {} })) as never),
      'hello from a',
      'one server left: it is reached',
    );
    await waitFor(async () => !(await tools()).has('b__show-greeting'));
    listed = await tools();
    t.same(
      uiOf(listed.get('a__show-greeting')),
      { ui: 'ui://greeting/view.html', old: 'ui://greeting/view.html' },
      'its URI no longer shared: as the server wrote it',
    );

    await s.client.close();
    await s.process.exited;
    await assertNoLeaks(t);
  },
);
