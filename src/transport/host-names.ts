// Host names as mcpmux compares them (the CLI's checks and the HTTP door's). Kept apart
// from http-guard.ts, which loads the SDK: the CLI parses its options before anything heavy.

export const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];
const LOOPBACK_ADDRESS = /^(127(\.\d{1,3}){3}|::1|localhost)$/;

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_ADDRESS.test(host);
}

/** A host as the Host header's hostname shows it: lower case, IPv6 in brackets, no port. */
export function hostnameOf(host: string): string {
  const trimmed = host.trim().toLowerCase();
  if (trimmed.includes('://')) return new URL(trimmed).hostname;
  // A bare IPv6 address (two or more colons, no brackets) gets its brackets.
  if (!trimmed.startsWith('[') && (trimmed.match(/:/g) ?? []).length > 1) return `[${trimmed}]`;
  return new URL(`http://${trimmed}`).hostname;
}
