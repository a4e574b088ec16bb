// The SDK's client side (its Client and transports), loaded with the first child: an empty
// mcpmux does not hold it. (Its error classes need no loading: the server package's match
// them, as the SDK brands them across its packages.)
export type ClientSdk = typeof import('@modelcontextprotocol/client');

let loading: Promise<ClientSdk> | undefined;

/** Loads it once. */
export function clientSdk(): Promise<ClientSdk> {
  return (loading ??= import('@modelcontextprotocol/client'));
}
