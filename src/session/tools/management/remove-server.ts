// remove_server: a server stopped (its process group confirmed dead), its tools withdrawn, and
// with persist its entry taken out of the config.
import { z } from 'zod';
import { jsonResult } from '../../results.js';
import { clusterFields, exitSchema, persistedFields, removeInput } from '../management-schemas.js';
import { clusterChange, persisted, requireConfig } from '../server-start.js';
import type { ManagementTool } from '../tool-context.js';
import { define, parseArguments as parse } from '../tool-definition.js';

export const removeServerTool = (): ManagementTool => ({
  definition: define(
    'remove_server',
    'Stop a server and withdraw its tools. Calls in flight to it fail at once; the process (and any process it started) is confirmed dead before this returns.',
    removeInput,
    z.object({
      removed: z.string(),
      tools_removed: z.array(z.string()),
      exit: exitSchema.optional(),
      ...persistedFields,
      ...clusterFields,
    }),
  ),
  handle: async (raw, { children, router, config, cluster }) => {
    const { name, persist } = parse('remove_server', removeInput, raw);
    if (persist) requireConfig(config, 'remove_server');
    const ofCluster = cluster?.has(name) === true;
    // Removed from every replica or from none: refused while Redis cannot be told.
    if (ofCluster) await cluster!.reachable();
    // A server of the cluster that this replica does not run (its policy refused it) leaves the cluster all the same.
    if (ofCluster && !children.list().some((s) => s.name === name)) {
      const { waiting } = (await cluster!.unpublished(name)) ?? { waiting: [] };
      return jsonResult({
        removed: name,
        tools_removed: [],
        cluster: clusterChange(cluster!.replica, waiting),
      });
    }
    const removed = await children.remove(name);
    const shared = ofCluster ? await cluster!.unpublished(name) : undefined;
    const result = {
      removed: removed.name,
      tools_removed: removed.tools.map((t) => router.exposedName(name, t, removed.prefix)),
      ...(removed.exit && { exit: removed.exit }),
      ...(shared && { cluster: clusterChange(cluster!.replica, shared.waiting) }),
    };
    return jsonResult(persist ? { ...result, ...(await persisted(config!, name, undefined)) } : result);
  },
});
