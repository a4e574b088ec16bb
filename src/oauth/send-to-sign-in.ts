// How a person is sent to sign in: the URL on stderr always (a log line), and opened with
// the command in $BROWSER when it is set, as gh and git do. mcpmux never guesses a browser.
import { spawn } from 'node:child_process';
import type { Logger } from '../common/log.js';

export function sendToSignIn(
  url: URL,
  why: string,
  serverName: string,
  log: Logger,
  env: Readonly<Record<string, string | undefined>> = process.env,
): void {
  log.warn(`[${serverName}] ${why}: sign in to continue: ${url.href}`);
  // $BROWSER may list several commands separated by ':' (the first is used) and hold arguments.
  const [command, ...args] = (env['BROWSER'] ?? '').split(':')[0]!.trim().split(/\s+/).filter(Boolean);
  if (command === undefined) return;
  const browser = spawn(command, [...args, url.href], { stdio: 'ignore' });
  browser.on('error', (error) =>
    log.warn(`[${serverName}] $BROWSER (${command}) could not be started: ${error.message}`),
  );
  browser.unref();
}
