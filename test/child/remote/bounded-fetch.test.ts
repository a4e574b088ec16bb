// The bound on a remote server's messages, on response bodies made here: events within it
// pass unchanged whatever their line ends and however the bytes are cut; an event past it is
// dropped, and an answer among them is replaced by an error answer with its id.
import t from 'tap';
import { boundedFetch } from '../../../src/child/remote/bounded-fetch.js';

const LIMIT = 100;
const reason = `a message of more than ${LIMIT} bytes from the server was dropped (the limit is --max-message-bytes)`;

/** A fetch whose response has `contentType` and a body of `chunks`, through the bound. */
function bounded(chunks: string[], contentType = 'text/event-stream', status = 200) {
  const dropped: string[] = [];
  const inner = async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
        controller.close();
      },
    });
    return new Response(status === 204 ? null : body, {
      status,
      headers: { 'content-type': contentType, location: 'http://elsewhere.test/' },
    });
  };
  const fetch = boundedFetch(inner, { limit: LIMIT, onDropped: (why) => dropped.push(why) });
  return { fetch, dropped };
}

const post = (id: number | string) => ({
  method: 'POST',
  body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'x' } }),
});

const errorEvent = (id: number | string) =>
  `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32700, message: reason } })}\n\n`;

t.test('events within the bound pass unchanged, with any line ends, cut anywhere', async (t) => {
  const stream =
    'event: message\nid: 1\ndata: {"jsonrpc":"2.0","method":"a"}\n\n' +
    'data: {"jsonrpc":"2.0","method":"b"}\r\n\r\n' +
    'data: {"jsonrpc":"2.0","method":"c"}\r\r' +
    ': a comment\n\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n';
  for (const size of [1, 2, 3, 7, 50, stream.length]) {
    const chunks = stream.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g'))!;
    const { fetch, dropped } = bounded(chunks);
    t.equal(await (await fetch('http://x.test/', post(1))).text(), stream, `in chunks of ${size}`);
    t.same(dropped, []);
  }
});

t.test('an answer past the bound becomes an error answer with its id', async (t) => {
  const big = 'x'.repeat(300);
  const before = 'data: {"jsonrpc":"2.0","method":"notifications/progress"}\n\n';
  const after = 'data: {"jsonrpc":"2.0","method":"notifications/message"}\n\n';
  const cases: [string, string, number | string][] = [
    // The id at the start (found at once), at the end (the SDK writes it last), or neither (the POST's).
    ['its id at its start', `data: {"jsonrpc":"2.0","id":"s-1","result":{"text":"${big}"}}\n\n`, 's-1'],
    ['its id at its end', `data: {"result":{"text":"${big}"},"jsonrpc":"2.0","id":7}\n\n`, 7],
    ['no id it says', `event: message\ndata: ${big}\r\n\r\n`, 42],
  ];
  for (const [what, event, id] of cases)
    for (const size of [5, 64, 1000]) {
      const chunks = (before + event + after).match(new RegExp(`[\\s\\S]{1,${size}}`, 'g'))!;
      const { fetch, dropped } = bounded(chunks);
      // The POST carried the request the event answers (42 when the event does not say).
      const text = await (await fetch('http://x.test/', post(id))).text();
      // A CRLF blank line is known to end the event at its CR: its LF stays, an empty line (no event).
      const left = event.endsWith('\r\n\r\n') ? '\n' : '';
      t.equal(text, before + errorEvent(id) + left + after, `${what}, in chunks of ${size}`);
      t.same(dropped, [reason], 'told once');
    }
});

t.test('a request or notification past the bound is dropped; nothing answers for it', async (t) => {
  const big = 'y'.repeat(300);
  const answer = 'data: {"jsonrpc":"2.0","id":1,"result":{}}\n\n';
  for (const event of [
    `data: {"jsonrpc":"2.0","method":"notifications/message","params":{"data":"${big}"}}\n\n`,
    `data: {"jsonrpc":"2.0","id":9,"method":"sampling/createMessage","params":{"x":"${big}"}}\n\n`,
    `event: endpoint\ndata: ${big}\n\n`,
  ]) {
    const { fetch, dropped } = bounded([event.slice(0, 150), event.slice(150), answer]);
    t.equal(await (await fetch('http://x.test/', post(1))).text(), answer);
    t.same(dropped, [reason]);
  }
});

t.test('a body that is not an event stream fails past the bound, with the reason', async (t) => {
  const { fetch, dropped } = bounded(
    ['{"jsonrpc":"2.0","id":1,', `"result":{"t":"${'z'.repeat(200)}"}}`],
    'application/json',
  );
  const response = await fetch('http://x.test/', post(1));
  await t.rejects(response.json(), { code: -32700, message: reason });
  t.same(dropped, [reason]);
  const small = bounded(['{"jsonrpc":"2.0","id":1,"result":{}}'], 'application/json');
  t.same(await (await small.fetch('http://x.test/', post(1))).json(), { jsonrpc: '2.0', id: 1, result: {} });
});

t.test('a redirect and a response without a body are handed back as they came', async (t) => {
  const redirect = bounded(['moved'], 'text/plain', 307);
  const response = await redirect.fetch('http://x.test/', post(1));
  t.equal(response.status, 307);
  t.equal(response.headers.get('location'), 'http://elsewhere.test/');
  t.equal(await response.text(), 'moved');
  const empty = await bounded([], 'text/plain', 204).fetch('http://x.test/', post(1));
  t.equal(empty.status, 204);
  t.equal(empty.body, null);
});

t.test('a bounded response keeps its status, headers and url', async (t) => {
  const inner = async () => {
    const response = new Response('{}', { status: 201, statusText: 'Made', headers: { 'x-a': 'b' } });
    Object.defineProperty(response, 'url', { value: 'http://final.test/mcp' });
    return response;
  };
  const response = await boundedFetch(inner, { limit: LIMIT, onDropped: () => {} })('http://x.test/');
  t.equal(response.status, 201);
  t.equal(response.statusText, 'Made');
  t.equal(response.headers.get('x-a'), 'b');
  t.equal(response.url, 'http://final.test/mcp');
  t.equal(await response.text(), '{}');
});

t.test("a POST's event stream that ends owing an answer brings an error answer for it", async (t) => {
  const answer = (id: number) => `data: {"jsonrpc":"2.0","id":${id},"result":{}}\n\n`;
  const progress = 'data: {"jsonrpc":"2.0","method":"notifications/progress","params":{}}\n\n';
  const owedError = (id: number, why: string) =>
    `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32603, message: why } })}\n\n`;
  const ended = 'the server ended its response stream without answering';
  // JSON.parse's words differ between Node versions: the reason is matched loosely.
  const cases: [string, string, string | RegExp][] = [
    ['answered: nothing added', progress + answer(1), ''],
    ['a notification, then the end', progress, owedError(1, ended)],
    [
      'an event that is not JSON',
      'data: <html>oops</html>\n\n',
      /^event: message\ndata: \{"jsonrpc":"2\.0","id":1,"error":\{"code":-32603,"message":"the server ended its response stream without answering; it sent an event that is not JSON \(.+\): <html>oops<\/html>"\}\}\n\n$/,
    ],
    [
      'an answer with an unescaped quote',
      'data: {"jsonrpc":"2.0","id":1,"result":{"t":"a "b""}}\n\n',
      /^event: message\ndata: \{"jsonrpc":"2\.0","id":1,"error":\{"code":-32603,"message":"the server ended its response stream without answering; it sent an event that is not JSON \(.+\): \{\\"jsonrpc\\":/,
    ],
    [
      "the server's own request under the same id",
      'data: {"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{}}\n\n',
      owedError(1, ended),
    ],
    ['an event with an id: the SDK resumes the stream', 'id: e-1\ndata: \n\n', ''],
  ];
  for (const [what, stream, added] of cases) {
    const { fetch, dropped } = bounded([stream]);
    const text = await (await fetch('http://x.test/', post(1))).text();
    t.equal(text.slice(0, stream.length), stream, `${what}: the stream as it came`);
    const tail = text.slice(stream.length);
    if (typeof added === 'string') t.equal(tail, added, what);
    else t.match(tail, added, what);
    t.same(dropped, tail ? [JSON.parse(tail.slice(tail.indexOf('{'))).error.message] : [], `${what}: told`);
  }
  const batch = {
    method: 'POST',
    body: JSON.stringify([1, 2].map((id) => ({ jsonrpc: '2.0', id, method: 'ping' }))),
  };
  t.equal(
    await (await bounded([answer(2)]).fetch('http://x.test/', batch)).text(),
    answer(2) + owedError(1, ended),
    'a batch: only the request left unanswered',
  );
  t.equal(
    await (await bounded([progress]).fetch('http://x.test/', { method: 'GET' })).text(),
    progress,
    'a stream no POST opened owes nothing',
  );
});

t.test('a JSON body too large to be checked whole that is not JSON: the error says so', async (t) => {
  const body = `{"jsonrpc":"2.0","id":1,"result":{"t":"${'a'.repeat(70_000)}"b"}}`;
  const inner = async () => new Response(body, { headers: { 'content-type': 'application/json' } });
  const fetch = boundedFetch(inner, { limit: 1_000_000, onDropped: () => {} });
  await t.rejects((await fetch('http://x.test/', post(1))).json(), {
    code: -32603,
    message: /^the server's answer is not JSON \(.+\): \{"jsonrpc":"2\.0","id":1,"result":\{"t":"a{161}…$/,
  });
  const json = { 'content-type': 'application/json' };
  const good = boundedFetch(async () => new Response(`{"n":"${'b'.repeat(70_000)}"}`, { headers: json }), {
    limit: 1_000_000,
    onDropped: () => {},
  });
  t.equal(
    ((await (await good('http://x.test/', post(1))).json()) as { n: string }).n.length,
    70_000,
    'JSON is read',
  );
});

t.test('a JSON body of messages one a line is read as a batch of them', async (t) => {
  const progress = {
    jsonrpc: '2.0',
    method: 'notifications/progress',
    params: { progressToken: 'p', progress: 50 },
  };
  const answer = { jsonrpc: '2.0', id: 1, result: { content: [] } };
  const body = `${JSON.stringify(progress)}\n${JSON.stringify(answer)}\n`;
  const fetch = boundedFetch(
    async () => new Response(body, { headers: { 'content-type': 'application/json' } }),
    { limit: 1_000_000, onDropped: () => {} },
  );
  t.same(await (await fetch('http://x.test/', post(1))).json(), [progress, answer]);
  const failed = { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'no such file' } };
  const withError = boundedFetch(
    async () =>
      new Response(`${JSON.stringify(progress)}\n${JSON.stringify(failed)}\n`, {
        headers: { 'content-type': 'application/json' },
      }),
    { limit: 1_000_000, onDropped: () => {} },
  );
  t.same(
    await (await withError('http://x.test/', post(1))).json(),
    [progress, failed],
    'an error answer among them too (a small body is checked as the batch it is)',
  );
  const broken = boundedFetch(
    async () =>
      new Response(`${JSON.stringify(answer)}\nnot json\n`, {
        headers: { 'content-type': 'application/json' },
      }),
    { limit: 1_000_000, onDropped: () => {} },
  );
  await t.rejects((await broken('http://x.test/', post(1))).json(), {
    code: -32603,
    message:
      /^the server's answer is not JSON \(.+\): \{"jsonrpc":"2\.0","id":1,"result":\{"content":\[\]\}\} not json$/,
  });
});

t.test(
  'an event that goes on past the skip budget closes its stream: each owed request answered, the source cancelled',
  async (t) => {
    let pulled = 0;
    let cancelled!: () => void;
    const cancel = new Promise<boolean>((resolve) => (cancelled = () => resolve(true)));
    const block = new TextEncoder().encode('x'.repeat(64 * 1024));
    // An endless event of no JSON, after an answer to one of the POST's two requests.
    const answer = 'data: {"jsonrpc":"2.0","id":1,"result":{}}\n\n';
    let started = false;
    const inner = async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            const chunk = started ? block : new TextEncoder().encode(answer + 'data: ');
            started = true;
            pulled += chunk.byteLength;
            controller.enqueue(chunk);
          },
          cancel() {
            cancelled();
          },
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      );
    const dropped: string[] = [];
    const fetch = boundedFetch(inner, { limit: LIMIT, onDropped: (why) => dropped.push(why) });
    const batch = [1, 2].map((id) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'x' } }));
    const text = await (
      await fetch('http://x.test/', { method: 'POST', body: JSON.stringify(batch) })
    ).text();
    t.equal(text, answer + errorEvent(2), 'the answer passed, then an error answer for the one still owed');
    // The pipe cancels its source after the readable side closed: a moment later on Node 24.
    const late = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 1000));
    t.ok(await Promise.race([cancel, late]), 'the source was cancelled');
    const budget = LIMIT + 4 * 1024 * 1024;
    t.ok(
      pulled > budget && pulled < budget + 2 * block.byteLength,
      `read ${pulled} bytes, just past the budget`,
    );
    t.equal(dropped[0], reason);
    t.match(dropped[1], /^the server sent more than \d+ bytes in one event; its response stream was closed$/);
    t.equal(dropped.length, 2);
  },
);
