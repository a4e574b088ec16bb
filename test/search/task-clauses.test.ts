// A task's requests, told apart by what people write between them, and their rankings fused.
import t from 'tap';
import { fuseRankings, taskClauses } from '../../src/search/task-clauses.js';

t.test('requests are split at sentence ends, step words and a verb that opens a request', async (t) => {
  t.same(
    taskClauses(
      'Could you first tell me the details of the 5 most recent Osmosis blocks, then find the token details ' +
        "for OSMO, verify if my wallet 'osmosis1x' owns any OSMO, and finally, give me the average price of OSMO/USDT?",
    ),
    [
      'Could you first tell me the details of the 5 most recent Osmosis blocks',
      'find the token details for OSMO',
      "verify if my wallet 'osmosis1x' owns any OSMO",
      'give me the average price of OSMO/USDT?',
    ],
  );
  t.same(
    taskClauses('Get detailed host information for 8.8.8.8 and check the status of Shodan v2.1 queries.'),
    ['Get detailed host information for 8.8.8.8', 'check the status of Shodan v2.1 queries.'],
    'a dotted address or version is not a sentence end; "and" before a verb opens a request',
  );
  t.same(
    taskClauses('List all workflows, assistants and agents on the server.'),
    ['List all workflows, assistants and agents on the server.'],
    'a list of things is one request',
  );
});

t.test(
  'bullets and lines are requests; a piece too short to say what it wants joins the one before',
  async (t) => {
    t.same(
      taskClauses('I need three things:\n- the weather in Paris\n- a map\n• flights from Oslo to Rome'),
      ['I need three things:', 'the weather in Paris a map', 'flights from Oslo to Rome'],
    );
    t.same(
      taskClauses('Hi. Search the web for MCP servers.'),
      ['Hi. Search the web for MCP servers.'],
      'a greeting leads',
    );
    t.same(taskClauses('find parks'), ['find parks']);
  },
);

t.test('a long text is read as at most eight requests', async (t) => {
  const text = Array.from({ length: 12 }, (_, i) => `Please fetch report number ${i} today.`).join(' ');
  const clauses = taskClauses(text);
  t.equal(clauses.length, 8);
  t.match(clauses[7], /report number 7 today\. .*report number 11 today\.$/, 'the rest is the last one');
});

t.test('fusion: each request gets a place at the top, the whole text leads where they agree', async (t) => {
  const list = (...names: string[]) => names.map((name, i) => ({ name, score: 10 - i }));
  const fused = fuseRankings(list('a1', 'a2', 'a3', 'a4', 'a5', 'b1'), [list('a1', 'a2'), list('b1', 'a3')]);
  t.same(
    fused.slice(0, 5).map((r) => r.name),
    ['a1', 'a2', 'a3', 'b1', 'a4'],
    "the whole text leads; the second request's best tool, its sixth, comes fourth",
  );
  // a1: first of the whole (3 ÷ 4) and of the first request (1 ÷ 4); b1: sixth of the whole, first of the second.
  t.equal(fused[0]!.score, 1);
  t.equal(fused.find((r) => r.name === 'b1')!.score, 3 / 9 + 1 / 4, 'Σ weight ÷ (3 + rank)');
  t.ok(
    fused.every((r, i) => i === 0 || fused[i - 1]!.score >= r.score),
    'best first',
  );
});
