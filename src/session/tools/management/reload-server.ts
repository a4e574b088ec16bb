// reload_server: a server restarted as a new process (after its build, with build: true), and
// what changed in its tools.
import { jsonResult } from '../../results.js';
import { exposeDiff, exposeStatus, summarize } from '../exposed-status.js';
import { diffSchema, reloadInput, startedOutput } from '../management-schemas.js';
import type { ManagementTool } from '../tool-context.js';
import { define, parseArguments as parse } from '../tool-definition.js';

export const reloadServerTool = (): ManagementTool => ({
  definition: define(
    'reload_server',
    'Restart a server as a new process with the same command (picks up rebuilt code; brings a crashed server back). ' +
      'Returns its tools and what changed: tools added, removed, and changed (schema or description). ' +
      'With build: true, its build command runs first, and a failed build keeps the running process.',
    reloadInput,
    startedOutput.extend({ changes: diffSchema }),
  ),
  handle: async (raw, { children, router }) => {
    const { name, build } = parse('reload_server', reloadInput, raw);
    const reloaded = await children.reload(name, { build: build === true });
    return jsonResult({
      server: exposeStatus(reloaded.status, router, children.snapshot),
      tools: summarize(reloaded.status, reloaded.tools, router, children.snapshot),
      changes: exposeDiff(reloaded.status, reloaded.changes, router),
    });
  },
});
