// SEP-2243's Mcp-Param-* headers: which arguments a tool marks, how their values are written,
// and when a call's headers disagree with its arguments (the rules of the SDK's core, and the
// cases of the conformance suite's http-custom-header-server-validation).
import t from 'tap';
import {
  HEADER_MISMATCH,
  callHeaderMismatch,
  paramHeaderMismatch,
  paramHeaderValues,
  paramHeadersOf,
} from '../../src/protocol/param-headers.js';

const schema = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  ...extra,
});
const region = { type: 'string', 'x-mcp-header': 'Region' };

t.test('declarations are read along properties only, and a wrong one voids them all', async (t) => {
  t.same(paramHeadersOf(schema({ region, query: { type: 'string' } })), [
    { path: ['region'], name: 'Region', type: 'string' },
  ]);
  t.same(
    paramHeadersOf(schema({ target: schema({ zone: { type: 'integer', 'x-mcp-header': 'Zone' } }) })),
    [{ path: ['target', 'zone'], name: 'Zone', type: 'integer' }],
    'nested under properties',
  );
  const wrong: [string, unknown][] = [
    [
      'under items',
      schema({ region, list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } } }),
    ],
    ['under anyOf', schema({ region }, { anyOf: [schema({ x: { type: 'string', 'x-mcp-header': 'X' } })] })],
    ['on an object', schema({ region, o: { type: 'object', 'x-mcp-header': 'O' } })],
    ['with no type', schema({ region, u: { 'x-mcp-header': 'U' } })],
    ['not a token', schema({ region, s: { type: 'string', 'x-mcp-header': 'Has Space' } })],
    ['empty', schema({ region, s: { type: 'string', 'x-mcp-header': '' } })],
    ['named twice (case aside)', schema({ region, other: { type: 'string', 'x-mcp-header': 'region' } })],
    ['on the root', { type: 'object', 'x-mcp-header': 'Root' }],
  ];
  for (const [label, input] of wrong) t.same(paramHeadersOf(input), [], label);
  t.same(paramHeadersOf(undefined), []);
  t.same(paramHeadersOf(schema({ query: { type: 'string' } })), [], 'none declared');
});

t.test('values go as they are when plain ASCII, else Base64 in a sentinel', async (t) => {
  const declared = paramHeadersOf(
    schema({
      region,
      count: { type: 'integer', 'x-mcp-header': 'Count' },
      on: { type: 'boolean', 'x-mcp-header': 'On' },
    }),
  );
  t.same(paramHeaderValues(declared, { region: 'us-west1', count: 3, on: false }), {
    'Mcp-Param-Region': 'us-west1',
    'Mcp-Param-Count': '3',
    'Mcp-Param-On': 'false',
  });
  const sentinel = (s: string) => `=?base64?${Buffer.from(s).toString('base64')}?=`;
  for (const value of ['Zürich', ' padded', '', '=?base64?abc?=', 'line\nbreak'])
    t.same(
      paramHeaderValues(declared, { region: value }),
      { 'Mcp-Param-Region': sentinel(value) },
      JSON.stringify(value),
    );
  t.same(
    paramHeaderValues(declared, { region: null, count: { n: 1 } }),
    {},
    'null and non-primitives are not sent',
  );
  t.same(paramHeaderValues(declared, undefined), {});
});

t.test('a call whose headers disagree with its arguments is told apart', async (t) => {
  const declared = paramHeadersOf(schema({ region, count: { type: 'integer', 'x-mcp-header': 'Count' } }));
  const headers = (given: Record<string, string>) => (name: string) =>
    Object.entries(given).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
  const check = (args: Record<string, unknown>, given: Record<string, string>) =>
    paramHeaderMismatch(declared, args, headers(given))?.body;

  t.equal(
    check({ region: 'eu' }, { 'mcp-param-region': 'eu' }),
    undefined,
    'header names are case-insensitive',
  );
  t.equal(
    check({ region: 'Hello' }, { 'Mcp-Param-Region': '=?base64?SGVsbG8=?=' }),
    undefined,
    'Base64 decoded',
  );
  t.equal(check({ region: '  eu  ' }, { 'Mcp-Param-Region': '=?base64?ICBldSAg?=' }), undefined);
  t.equal(check({ count: 42 }, { 'Mcp-Param-Count': '42.0' }), undefined, 'numbers compare as numbers');
  t.equal(check({}, {}), undefined, 'an argument left out needs no header');
  t.equal(check({ region: null }, { 'Mcp-Param-Region': 'anything' }), undefined);
  t.match(
    check({ region: 'eu' }, {}),
    /the body carries region="eu" but the Mcp-Param-Region header is absent/,
  );
  t.match(
    check({ region: 'eu' }, { 'Mcp-Param-Region': 'us' }),
    /decodes to "us" but the body carries region="eu"/,
  );
  t.match(
    check({ region: 'Hello' }, { 'Mcp-Param-Region': '=?base64?SGVsbG8?=' }),
    /invalid Base64/,
    'padding',
  );
  t.match(check({ region: 'Hello' }, { 'Mcp-Param-Region': '=?base64?SGVs!!!bG8=?=' }), /invalid Base64/);
  t.equal(
    check({ region: 'SGVsbG8=' }, { 'Mcp-Param-Region': 'SGVsbG8=' }),
    undefined,
    'no sentinel: the value is literal',
  );
  t.match(
    check({ count: 42 }, { 'Mcp-Param-Count': '0x2a' }),
    /decodes to "0x2a"/,
    'only plain decimals are numbers',
  );
});

t.test('a tools/call request is answered -32020 when its headers disagree', async (t) => {
  const inputSchemaOf = (name: string) => (name === 'r__route' ? schema({ region }) : schema({}));
  const call = (name: string, args: unknown) => ({
    jsonrpc: '2.0',
    id: 7,
    method: 'tools/call',
    params: { name, arguments: args },
  });
  const none = {};
  const refused = callHeaderMismatch(call('r__route', { region: 'eu' }), none, inputSchemaOf);
  t.same(refused, {
    id: 7,
    error: {
      code: HEADER_MISMATCH,
      message:
        'Bad Request: the request headers and body disagree: the body carries region="eu" but the Mcp-Param-Region header is absent',
      data: {
        mismatch: {
          header: 'Mcp-Param-Region',
          body: 'the body carries region="eu" but the Mcp-Param-Region header is absent',
        },
      },
    },
  });
  t.equal(
    callHeaderMismatch(call('r__route', { region: 'eu' }), { 'mcp-param-region': 'eu' }, inputSchemaOf),
    undefined,
  );
  t.equal(
    callHeaderMismatch(call('other', { region: 'eu' }), none, inputSchemaOf),
    undefined,
    'no declarations',
  );
  t.equal(callHeaderMismatch(call('r__route', 'not an object'), none, inputSchemaOf), undefined);
  t.equal(
    callHeaderMismatch({ ...call('r__route', { region: 'eu' }), method: 'tools/list' }, none, inputSchemaOf),
    undefined,
  );
  t.equal(
    callHeaderMismatch(
      { jsonrpc: '2.0', method: 'tools/call', params: { name: 'r__route', arguments: { region: 'eu' } } },
      none,
      inputSchemaOf,
    ),
    undefined,
    'a notification',
  );
  t.equal(
    callHeaderMismatch([call('r__route', { region: 'eu' })], none, inputSchemaOf),
    undefined,
    'a batch',
  );
});
