// Running a program through execute_code (--expose code) and reading its outcome.
import type { ExecuteResult } from '../../src/code/code-mode.js';
import { textOf, type Harness } from './mux-harness.js';

/** Runs a program; a failed program is an isError result whose text is the same JSON. */
export async function run(
  h: Harness,
  code: string,
  extra: Record<string, unknown> = {},
): Promise<ExecuteResult> {
  const result = await h.call('execute_code', { code, ...extra });
  return JSON.parse(textOf(result)) as ExecuteResult;
}
