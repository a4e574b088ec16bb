// An install without mcpmux's optional packages (npm install --omit=optional): everything but
// what they serve works, and asking for that says what is missing before anything starts.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import t from 'tap';
import { initialize, sourceInstall } from '../helpers/installed-copy.js';

t.test(
  'without json-schema-to-typescript, mcpmux serves, and --expose code says what to install',
  async (t) => {
    const dir = sourceInstall(t, { without: ['json-schema-to-typescript', 'prettier'] });
    const started = await initialize(join(dir, 'bin/mcpmux.js'));
    t.equal(started.answer.result?.serverInfo?.name, 'mcpmux');
    const code = spawnSync(process.execPath, [join(dir, 'bin/mcpmux.js'), '--expose', 'code'], {
      input: '',
      encoding: 'utf8',
    });
    t.equal(code.status, 2, 'a usage error');
    t.equal(code.stdout, '', 'nothing on the protocol stream');
    t.match(
      code.stderr,
      /--expose code needs json-schema-to-typescript, an optional dependency of mcpmux that this install left out \(npm --omit=optional\): install it beside mcpmux \(npm install json-schema-to-typescript\)/,
    );
  },
);
