// Types of with-addresses.mjs, for the tests (TypeScript) that import it.
export declare const HAPROXY_CONFIG: string;
export declare function haproxyConfig(
  bindPort: number,
  replicas: readonly string[],
  globalLines?: readonly string[],
): string;
