// mcpmux --help: every flag is listed, and every flag listed is one the parser knows.
import t from 'tap';
import { FLAG_HELP, helpText } from '../../src/cli/cli-help.js';
import { parseCli } from '../../src/cli/parse-cli.js';

t.test('help lists every flag', async (t) => {
  const help = helpText('1.2.3');
  t.match(help, /mcpmux 1\.2\.3/);
  for (const [flag] of FLAG_HELP) t.ok(help.includes(flag), flag);
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
