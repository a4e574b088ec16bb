// Exposed names: plain when they fit, rewritten deterministically when they do not, and
// always within the client's character set and length budget.
import fc from 'fast-check';
import t from 'tap';
import {
  exposedToolName,
  maxServerNameLength,
  serverNameProblem,
  splitExposedName,
} from '../../src/router/tool-names.js';

const serverName = fc
  .stringMatching(/^[a-zA-Z0-9][a-zA-Z0-9_-]{0,40}$/)
  .filter((name) => serverNameProblem(name) === undefined);

t.test('a tool that fits keeps its plain name', async (t) => {
  t.equal(exposedToolName('memory', 'read_graph'), 'memory__read_graph');
  t.same(splitExposedName('memory__read_graph'), { server: 'memory', tool: 'read_graph' });
  t.same(splitExposedName('a__b__c'), { server: 'a', tool: 'b__c' }, 'splits on the first __');
  t.equal(splitExposedName('list_servers'), undefined);
});

t.test('characters outside the client set are replaced and the name gets a hash', async (t) => {
  const name = exposedToolName('gh', 'repo.search');
  t.match(name, /^gh__repo_search_[0-9a-f]{8}$/);
  t.not(name, exposedToolName('gh', 'repo_search'), 'differs from the tool that really is named repo_search');
  t.equal(name, exposedToolName('gh', 'repo.search'), 'deterministic');
});

t.test('a long name is cut to the budget with a hash, keeping the server prefix', async (t) => {
  const long = 'x'.repeat(100);
  const name = exposedToolName('srv', long, 40);
  t.equal(name.length, 40);
  t.match(name, /^srv__x+_[0-9a-f]{8}$/);
  t.not(exposedToolName('srv', long + 'y', 40), name, 'two long names that share a prefix stay distinct');
});

t.test('server names', async (t) => {
  t.equal(serverNameProblem('git-hub_2'), undefined);
  t.match(serverNameProblem(''), /empty/);
  t.match(serverNameProblem('a__b'), /'__'/);
  t.match(serverNameProblem('a_'), /ends with '_'/);
  t.match(serverNameProblem('-a'), /must start with a letter or digit/);
  t.match(serverNameProblem('a.b'), /may only contain/);
  t.equal(maxServerNameLength(64), 52);
  t.equal(serverNameProblem('n'.repeat(52)), undefined);
  t.match(serverNameProblem('n'.repeat(53)), /at most 52/);
  t.match(serverNameProblem('n'.repeat(30), 40), /at most 28/, 'the budget follows --max-tool-name');
});

t.test('property: any tool of any valid server gets a valid, decodable, deterministic name', async (t) => {
  fc.assert(
    fc.property(
      serverName,
      fc.string({ maxLength: 120 }),
      fc.integer({ min: 16, max: 128 }),
      (server, tool, budget) => {
        fc.pre(serverNameProblem(server, budget) === undefined);
        const name = exposedToolName(server, tool, budget);
        return (
          /^[a-zA-Z0-9_-]+$/.test(name) &&
          name.length <= budget &&
          splitExposedName(name)?.server === server &&
          exposedToolName(server, tool, budget) === name
        );
      },
    ),
    { numRuns: 2000 },
  );
  t.pass('held for 2000 generated cases');
});

t.test('property: distinct tools of one server get distinct names', async (t) => {
  fc.assert(
    fc.property(
      serverName,
      fc.uniqueArray(fc.string({ maxLength: 90 }), { minLength: 2, maxLength: 30 }),
      (server, tools) => {
        const names = tools.map((tool) => exposedToolName(server, tool, 48));
        return new Set(names).size === names.length;
      },
    ),
    { numRuns: 500 },
  );
  t.pass('held for 500 generated tool sets');
});
