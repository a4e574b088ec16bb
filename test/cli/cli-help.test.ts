// mcpmux's help: --help fits a screen; every flag is listed under a topic (and in `help all`),
// and every flag listed is one the parser knows; each subcommand has its own.
import t from 'tap';
import {
  FLAG_HELP,
  FLAG_TOPICS,
  HELP_TOPICS,
  helpText,
  subcommandHelp,
  topicHelp,
} from '../../src/cli/cli-help.js';
import { parseCli } from '../../src/cli/parse-cli.js';

t.test('--help fits a screen and says where the rest is', async (t) => {
  const help = helpText('1.2.3');
  t.match(help, /mcpmux 1\.2\.3/);
  t.ok(help.split('\n').length <= 30, `${help.split('\n').length} lines`);
  t.match(
    help,
    /mcpmux help TOPIC \(servers, serving, policy, search, agent, registries, observability, commands, clients\)/,
  );
  for (const usage of ['inspect', 'call', 'auth', 'import', 'install', 'secrets', 'help'])
    t.match(help, new RegExp(`mcpmux ${usage} `), usage);
});

t.test('help all lists every flag; each topic lists its own', async (t) => {
  const all = topicHelp('all', 'CLIENTS')!;
  for (const [flag] of FLAG_HELP) t.ok(all.includes(flag), flag);
  t.match(all, /CLIENTS/, 'and the clients commands');
  for (const { topic, flags } of FLAG_TOPICS) {
    const shown = topicHelp(topic, '')!;
    for (const [flag] of flags) t.ok(shown.includes(flag), `${topic}: ${flag}`);
  }
  t.equal(topicHelp('clients', 'CLIENTS'), 'CLIENTS');
  t.equal(topicHelp('nope', ''), undefined);
  t.same(HELP_TOPICS.slice(-2), ['clients', 'all']);
});

t.test("a subcommand's help has its usage and the flags it takes", async (t) => {
  t.match(
    subcommandHelp('call'),
    /^mcpmux call \[--json\][\s\S]*list_servers[\s\S]*--config FILE[\s\S]*--allow-command/,
  );
  t.match(subcommandHelp('inspect'), /^mcpmux inspect [\s\S]*--json/);
  t.match(subcommandHelp('auth'), /^mcpmux auth \[--logout\] NAME --config FILE/);
});

t.test('every flag in the help is one parseCli knows', async (t) => {
  for (const [flags] of FLAG_HELP) {
    const long = /--[a-z-]+/.exec(flags)?.[0];
    if (long === undefined) continue;
    // A flag parseArgs does not know is a CliError naming it; a known one fails, if at all, on its value.
    let problem = '';
    try {
      parseCli([long], {});
    } catch (error) {
      problem = (error as Error).message;
    }
    t.notMatch(problem, /Unknown option/, long);
  }
});

t.test('a mistyped subcommand is named with the one meant', async (t) => {
  t.throws(() => parseCli(['imprt'], {}), {
    message: "'imprt' is not a subcommand; did you mean 'mcpmux import'?",
  });
  t.throws(() => parseCli(['instal'], {}), { message: /did you mean 'mcpmux install'\?/ });
  t.throws(() => parseCli(['frobnicate'], {}), {
    message:
      /^'frobnicate' is not a subcommand \(inspect, call, auth, import, install, secrets, help\); servers go after --/,
  });
});
