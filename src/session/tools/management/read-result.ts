// read_result: a result too large for its reply, read back from where it was kept.
import { readResult, readResultInput } from '../../../results/read-result.js';
import { jsonResult } from '../../results.js';
import type { ManagementTool } from '../tool-context.js';
import { define, parseArguments as parse } from '../tool-definition.js';

export const readResultTool = (): ManagementTool => ({
  definition: define(
    'read_result',
    'Read a tool result that was too large for the reply and was kept whole under a handle: its head or tail, a slice of lines ' +
      'or bytes, lines matching a pattern (grep), its size (stat), or a part of it as JSON.',
    readResultInput,
  ),
  handle: async (raw, { results }) =>
    jsonResult(await readResult(results, parse('read_result', readResultInput, raw))),
});
