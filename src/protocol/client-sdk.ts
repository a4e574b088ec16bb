// The SDK's client side (its Client and transports), loaded with the first child: an empty
// mcpmux does not hold it. (Its error classes need no loading: the server package's match
// them, as the SDK brands them across its packages.)
export type ClientSdk = typeof import('@modelcontextprotocol/client');

let loading: Promise<ClientSdk> | undefined;

/** Loads it once. */
export function clientSdk(): Promise<ClientSdk> {
  return (loading ??= import('@modelcontextprotocol/client'));
}

let warmed = false;

/**
 * Builds the SDK's message schemas (both eras, ~20 ms of CPU) once, in a later task: called
 * as a spawned server is first asked to open, it uses the time that server takes to start.
 * Built lazily instead, they were on the path to the first answered list: from the server's
 * answer to the 2026-07-28 probe to mcpmux's initialize took 8–17 ms, now 3–9 ms.
 */
export function warmSchemasWhileWaiting(sdk: ClientSdk): void {
  if (warmed) return;
  warmed = true;
  setImmediate(() => {
    try {
      sdk.preloadSchemas();
    } catch {
      // Only a head start: the SDK builds them on first use all the same.
    }
  });
}
