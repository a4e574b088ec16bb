// A config file's path in a temporary directory that is removed when the test ends.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';

/** `…/servers.json` in a fresh directory named after `prefix`; the file is the test's to write. */
export function tempConfigPath(t: Test, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'servers.json');
}

/**
 * `XDG_STATE_HOME` in a fresh folder, for an mcpmux of its own state: approvals of servers'
 * text are kept per server identity (its command line), so a test that starts one server
 * twice with different lists (another client's capabilities) gives each run its own.
 */
export function freshStateEnv(t: Test): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpmux-state-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true, maxRetries: 5 }));
  return { XDG_STATE_HOME: dir };
}
