// A client's tools/call line read without parsing its arguments: recognized only in the two
// shapes SDKs write, its arguments checked against JSON's grammar exactly as JSON.parse would
// judge them, and passed on as written. Anything else is left to the parsed path, which the
// e2e fast-path tests cover with real processes.
import t from 'tap';
import { childCallLine, jsonValueEnd, readCallLine } from '../../src/protocol/call-line.js';
import { ChildLane } from '../../src/child/requests/child-lane.js';
import { ForwardedCall } from '../../src/protocol/forwarded-call.js';

const ts = (args: string, id = '7', name = 'ev__echo') =>
  `{"method":"tools/call","params":{"name":"${name}","arguments":${args}},"jsonrpc":"2.0","id":${id}}`;
const py = (args: string, id = '7', name = 'ev__echo') =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${name}","arguments":${args}}}`;

t.test('the two shapes SDKs write are read, arguments as written', async (t) => {
  const args =
    '{"message":"hé \\"quoted\\" \\u00e9","n":12345678901234567890,"list":[1,-2.5e3,true,null,{}]}';
  for (const line of [ts(args), py(args)]) {
    t.same(readCallLine(line), { id: 7, name: 'ev__echo', argumentsText: args }, line);
    // What the line holds is what JSON.parse reads from it.
    t.same(JSON.parse(line).params.arguments, JSON.parse(args));
  }
  t.same(readCallLine(ts('{}', '"req-1"')), { id: 'req-1', name: 'ev__echo', argumentsText: '{}' });
  t.same(readCallLine(py('{}', '-3')), { id: -3, name: 'ev__echo', argumentsText: '{}' });
  t.same(readCallLine(ts('{}', '0')), { id: 0, name: 'ev__echo', argumentsText: '{}' });
  t.same(readCallLine(ts('{}', '""')), { id: '', name: 'ev__echo', argumentsText: '{}' });
  t.same(readCallLine(ts('{}', '123456789012345')), {
    id: 123456789012345,
    name: 'ev__echo',
    argumentsText: '{}',
  });
});

t.test('the child line carries the child id and name, the arguments unchanged', async (t) => {
  const args = '{"big":12345678901234567890,"s":"\\u00e9"}';
  const line = childCallLine('mcpmux-4', 'echo', args);
  t.same(JSON.parse(line), {
    jsonrpc: '2.0',
    id: 'mcpmux-4',
    method: 'tools/call',
    params: { name: 'echo', arguments: JSON.parse(args) },
  });
  t.ok(line.includes('12345678901234567890'), 'a large number keeps its digits');
});

t.test('anything else is left to the parsed path', async (t) => {
  for (const line of [
    // Arguments that JSON.parse refuses: the line must not go on.
    ts('{"a":1'),
    ts('{"a":01}'),
    ts('{"a":1.}'),
    ts('{"a":.5}'),
    ts('{"a":-}'),
    ts('{"a":1e}'),
    ts('{"a":"\\x"}'),
    ts('{"a":"\\u12g4"}'),
    ts('{"a":"tab\there"}'),
    ts('{"a":[1,]}'),
    ts('{"a":1,}'),
    ts('{a:1}'),
    ts('{"a" 1}'),
    ts('{"a":tru}'),
    ts('{"a":1}}'),
    ts('[1]'), // not an object
    ts('"text"'),
    // More in params than the name and the arguments (a progress token asked for).
    '{"method":"tools/call","params":{"name":"ev__echo","arguments":{},"_meta":{"progressToken":1}},"jsonrpc":"2.0","id":7}',
    '{"method":"tools/call","params":{"name":"ev__echo"},"jsonrpc":"2.0","id":7}', // no arguments
    ts('{}', '7', 'ev\\"echo'), // an escape in the name
    ts('{}', '1.5'), // not an id
    ts('{}', '1234567890123456'), // past 15 digits
    ts('{}', '07'), // a leading zero: not JSON
    ts('{}', '-'),
    ts('{}', '--1'),
    ts('{}', '1e3'),
    ts('{}', '"'), // one quote is no string
    ts('{}', '"a\u0001b"'), // a raw control character in a string id
    ts('{}', '7', 'ev\techo'), // a raw tab in the name
    ts('{}', '"a\\"b"'), // an escape in a string id
    ts('{}', 'null'),
    ts('{}') + ' ', // whitespace after
    ts('{}').replace('{"method"', '{ "method"'),
    '{"method":"tools/list","params":{},"jsonrpc":"2.0","id":7}',
    py('{}').slice(0, -1), // cut short
    py('{}') + '}',
  ])
    t.equal(readCallLine(line), undefined, line);
});

t.test('the grammar check agrees with JSON.parse and survives any nesting', async (t) => {
  const values = [
    '{}',
    '[]',
    '{ "a" : [ 1 , 2 ] , "b" : { } }',
    '"\\ud83d\\ude00 \\/ \\b\\f\\n\\r\\t"',
    '-0',
    '0.5e-3',
    '1E+2',
    'true',
    'false',
    'null',
    '[[[[[]]]]]',
    '{"a":{"b":{"c":[{"d":"e"}]}}}',
  ];
  for (const value of values) {
    t.doesNotThrow(() => JSON.parse(value));
    t.equal(jsonValueEnd(value, 0), value.length, value);
  }
  // Not one whole value: either none is found, or it ends before the text does (the caller checks where).
  for (const bad of ['', '{', '[', '{"a"}', '[1 2]', '{"a":1 "b":2}', '00', '+1', '"', '"\\', 'nul']) {
    t.throws(() => JSON.parse(bad), bad);
    t.not(jsonValueEnd(bad, 0), bad.length, bad);
  }
  // Long strings, which are skipped in runs: what ends a run must still be judged.
  const run = 'x'.repeat(5000);
  for (const value of [`"${run}"`, `"${run}\\n${run}"`, `"${run}\\u00e9${run}"`, `{"${run}":"ü${run}"}`])
    t.equal(jsonValueEnd(value, 0), value.length, `${value.length} characters`);
  for (const bad of [
    `"${run}`,
    `"${run}\u0001${run}"`,
    `"${run}\\x${run}"`,
    `"${run}\\u00g0"`,
    `"${run}\\`,
  ]) {
    t.throws(() => JSON.parse(bad));
    t.not(jsonValueEnd(bad, 0), bad.length, `${bad.length} characters, not a string`);
  }
  // Deep nesting: an array, not the call stack, keeps the depth.
  const deep = '['.repeat(200_000) + ']'.repeat(200_000);
  t.equal(jsonValueEnd(deep, 0), deep.length);
  t.equal(jsonValueEnd('['.repeat(200_000), 0), -1);
});

t.test('a lane sends a spliced call under its own id, with a deadline like any call', async (t) => {
  const lines: string[] = [];
  const messages: unknown[] = [];
  const lane = new ChildLane({
    server: 's',
    send: (message) => void messages.push(message),
    sendLine: (line) => void lines.push(line),
    callTimeoutMs: 60_000,
    peer: {
      modern: () => false,
      mayAsk: () => false,
      callFor: () => () => {},
      sessionLogLevel: () => undefined,
    },
  });
  const reply = Object.assign(() => {}, { line: () => {} });
  const call = new ForwardedCall(
    9,
    undefined,
    "tool 'echo'",
    reply,
    {
      result: (r) => r,
      failure: () => ({ result: {} }),
    },
    () => {},
  );
  lane.startCallLine(call, 'echo', '{"message":"hi"}');
  t.equal(call.childId, 'mcpmux-1');
  t.ok(call.deadline > 0, 'armed');
  t.same(JSON.parse(lines[0]!), {
    jsonrpc: '2.0',
    id: 'mcpmux-1',
    method: 'tools/call',
    params: { name: 'echo', arguments: { message: 'hi' } },
  });
  t.same(messages, [], 'nothing else was sent');
  // Cancelled under the child's id, as any call.
  lane.cancel(call, 'done with the test');
  t.same(messages, [
    {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 'mcpmux-1', reason: 'done with the test' },
    },
  ]);
});
