// The spans the running set makes of its own work (a start, a reload, a build) and what each
// says of its server; without telemetry the work runs as it is, with no span made.
import type { ServerSpec } from '../child/server-spec.js';
import { telemetry, type Attributes } from '../common/telemetry.js';

/** What every management span says of its server. */
export function serverAttributes(name: string, spec: ServerSpec): Attributes {
  return {
    'mcpmux.server.name': name,
    'mcpmux.server.transport': spec.transport,
    ...(spec.registryEntry !== undefined && { 'mcpmux.server.registry_entry': spec.registryEntry }),
  };
}

/** `work` in a span of its own under the request that asked for it (if any), when telemetry is on. */
export function spanned<T>(name: string, attributes: Attributes, work: () => Promise<T>): Promise<T> {
  return telemetry.enabled ? telemetry.internal(name, attributes, work) : work();
}
