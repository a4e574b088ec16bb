// Which requests of a 2026-07-28 client hear a child's log message: those in flight to it that
// named a level at or below the message's, each destination once; none that named no level.
import t, { type Test } from 'tap';
import type { InputOrigin, JSONRPCRequestLike } from '../../../src/child/child-types.js';
import {
  atOrAbove,
  logToRequests,
  moreVerbose,
  requestLogs,
  requestedLogLevel,
  type RequestLogs,
} from '../../../src/child/requests/request-logs.js';

const LEVEL_KEY = 'io.modelcontextprotocol/logLevel';

/** An origin whose request asked for `level` (or nothing), recording what it was sent. */
function caller(level?: string, sent: JSONRPCRequestLike[] = []): { origin: InputOrigin; sent: typeof sent } {
  const send: RequestLogs['send'] = async (n) => void sent.push(n);
  const logs = requestLogs(level === undefined ? {} : { [LEVEL_KEY]: level }, send);
  return {
    origin: { capabilities: {}, ask: () => Promise.reject(new Error('not asked')), logs },
    sent,
  };
}

/** A send that fails is a failed test here. */
const unexpected = (t: Test) => (error: unknown) => t.fail(`unexpected send failure: ${String(error)}`);

const log = (level: string, logger?: string): JSONRPCRequestLike => ({
  method: 'notifications/message',
  params: { level, data: `${level} message`, ...(logger && { logger }) },
});

t.test('a request names a level MCP knows, or none', async (t) => {
  t.equal(requestedLogLevel({ [LEVEL_KEY]: 'warning' }), 'warning');
  t.equal(requestedLogLevel({}), undefined, 'no key');
  t.equal(requestedLogLevel({ [LEVEL_KEY]: 'loud' }), undefined, 'a level MCP has no name for');
  t.equal(requestedLogLevel(undefined), undefined, 'no _meta');
  t.equal(
    requestLogs({}, async () => {}),
    undefined,
    'no level: no log messages',
  );
});

t.test('levels: at or above, and the more verbose of two', async (t) => {
  t.ok(atOrAbove('error', 'warning'));
  t.ok(atOrAbove('warning', 'warning'));
  t.notOk(atOrAbove('info', 'warning'));
  t.ok(atOrAbove('verbose', 'error'), 'a level MCP has no name for passes: the reader decides');
  t.equal(moreVerbose('error', 'info'), 'info');
  t.equal(moreVerbose(undefined, 'notice'), 'notice');
  t.equal(moreVerbose('debug', undefined), 'debug');
  t.equal(moreVerbose(undefined, undefined), undefined);
});

t.test('a log message goes to each request that asked for its level, named after its server', async (t) => {
  const quiet = caller();
  const info = caller('info');
  const error = caller('error');
  const callers = [quiet.origin, info.origin, error.origin];
  t.equal(logToRequests('db', log('warning', 'pool'), callers, unexpected(t)), 1);
  t.same(info.sent, [
    {
      method: 'notifications/message',
      params: { level: 'warning', data: 'warning message', logger: 'db/pool' },
    },
  ]);
  t.same(quiet.sent, [], 'a request that named no level hears nothing');
  t.same(error.sent, [], "a request at 'error' does not hear a warning");
  t.equal(logToRequests('db', log('critical'), callers, unexpected(t)), 2);
  t.same(error.sent.at(-1)?.params?.['logger'], 'db', "a message without a logger is the server's");
});

t.test(
  'two requests with one destination hear a message once; errors are reported, not thrown',
  async (t) => {
    const sent: JSONRPCRequestLike[] = [];
    const one = caller('debug', sent);
    const two = { ...one.origin }; // another call of the same client: the same send
    t.equal(logToRequests('db', log('info'), [one.origin, two], unexpected(t)), 1);
    t.equal(sent.length, 1);
    const failures: unknown[] = [];
    const broken: InputOrigin = {
      capabilities: {},
      ask: () => Promise.reject(new Error('not asked')),
      logs: { level: 'debug', send: () => Promise.reject(new Error('stream closed')) },
    };
    t.equal(
      logToRequests('db', log('info'), [broken], (e) => failures.push(e)),
      1,
    );
    await new Promise((resolve) => setImmediate(resolve));
    t.match(failures, [{ message: 'stream closed' }]);
  },
);
