// reload_server: a server restarted as a new process (after its build, with build: true), and
// what changed in its tools. A config's server that waits for its values is tried again from
// the config as it is now (it may give them, or name a kept secret since kept).
import { MuxError } from '../../../common/errors.js';
import { jsonResult } from '../../results.js';
import { exposeDiff, exposeStatus, summarize } from '../exposed-status.js';
import { diffSchema, reloadInput, startedOutput } from '../management-schemas.js';
import { clusterChange } from '../server-start.js';
import type { ManagementContext, ManagementTool } from '../tool-context.js';
import { define, parseArguments as parse } from '../tool-definition.js';

export const reloadServerTool = (): ManagementTool => ({
  definition: define(
    'reload_server',
    'Restart a server as a new process with the same command (picks up rebuilt code; brings a crashed server back). ' +
      'Returns its tools and what changed: tools added, removed, and changed (schema or description). ' +
      'With build: true, its build command runs first, and a failed build keeps the running process. ' +
      'A server that needs_config is started from the config as it is now.',
    reloadInput,
    startedOutput.extend({ changes: diffSchema }),
  ),
  handle: async (raw, ctx) => {
    const { name, build } = parse('reload_server', reloadInput, raw);
    const { children, router, cluster } = ctx;
    if (statusOf(ctx, name)?.status === 'needs_config') return startFromConfig(ctx, name);
    // A server of the cluster is reloaded on every replica, or on none while Redis cannot be told.
    const ofCluster = cluster?.has(name) === true;
    if (ofCluster) await cluster!.reachable();
    const reloaded = await children.reload(name, { build: build === true });
    const shared = ofCluster ? await cluster!.reloaded(name) : undefined;
    return jsonResult({
      server: exposeStatus(reloaded.status, router, children.snapshot),
      tools: summarize(reloaded.status, reloaded.tools, router, children.snapshot),
      changes: exposeDiff(reloaded.status, reloaded.changes, router, children.snapshot),
      ...(shared && { cluster: clusterChange(cluster!.replica, shared.waiting) }),
    });
  },
});

const statusOf = ({ children }: ManagementContext, name: string) =>
  children.list().find((s) => s.name === name);

/** The config read again and applied (what --watch-config does on an edit); the server as it then is. */
async function startFromConfig(ctx: ManagementContext, name: string) {
  const { children, router, config } = ctx;
  await config?.sync();
  const status = statusOf(ctx, name);
  if (!status) throw new MuxError('SERVER_NOT_FOUND', `server '${name}' is no longer in the config`);
  if (status.status === 'needs_config' || status.status === 'crashed')
    throw new MuxError(
      status.status === 'needs_config' ? 'NEEDS_CONFIG' : 'STARTUP_FAILED',
      status.last_error ?? `server '${name}' did not start`,
    );
  const tools = children.snapshot.servers.get(name)?.tools ?? [];
  return jsonResult({
    server: exposeStatus(status, router, children.snapshot),
    tools: summarize(status, tools, router, children.snapshot),
    changes: exposeDiff(
      status,
      { added: tools.map((t) => t.name), removed: [], changed: [] },
      router,
      children.snapshot,
    ),
  });
}
