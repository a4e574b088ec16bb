// `node --import ./test/loader/register.mjs`: the suites' TypeScript loader (hooks.mjs), and a
// state folder of each test file's own: what mcpmux keeps across runs (approvals of servers'
// text, held servers, kept secrets, tokens) must not pass from one test file to another, nor
// come from the machine's. The mcpmux processes a test starts inherit it.
import { mkdtempSync, rmSync } from 'node:fs';
import { register } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

register('./hooks.mjs', import.meta.url);

if (!process.env.MCPMUX_TEST_STATE) {
  const dir = mkdtempSync(join(tmpdir(), 'mcpmux-test-state-'));
  process.env.MCPMUX_TEST_STATE = dir;
  process.env.XDG_STATE_HOME = dir;
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
}
