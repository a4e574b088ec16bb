// A place to perform an attack on the built mcpmux and see whether it worked: a home folder
// with its own PATH (node, npx and sh, as a user's machine has them; npx runs the packages
// installed here, offline), a marker file that hostile code writes when it runs, and a
// registry served on 127.0.0.1 with whatever entries the attacker published.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Test } from 'tap';
import { startRemoteFixture, type RemoteFixture } from './remote-fixtures.js';

export interface AttackLab {
  readonly home: string;
  /** mcpmux's PATH: node, npx, sh. */
  readonly bin: string;
  /** mcpmux's environment: that PATH, its own cache and state folders, npx offline. */
  readonly env: Record<string, string>;
  /** The file hostile code writes; whether it exists is whether the attack ran. */
  readonly marker: string;
  /** Whether hostile code ran (and what it wrote). */
  ran(): string | undefined;
  /** Node code that writes the marker, with no space (NODE_OPTIONS splits on them): for an --import of a data: URL. */
  readonly markerModule: string;
  /** Serves `entries` (the registry API's `{server}` items) on 127.0.0.1. */
  registry(entries: readonly { server: Record<string, unknown> }[]): Promise<RemoteFixture>;
}

export function attackLab(t: Test): AttackLab {
  const home = mkdtempSync(join(tmpdir(), 'mcpmux-attack-'));
  t.teardown(() => rmSync(home, { recursive: true, force: true }));
  const bin = runtimeBin(home);
  const marker = join(home, 'pwned');
  let served = 0;
  return {
    home,
    bin,
    env: {
      PATH: bin,
      XDG_CACHE_HOME: join(home, 'cache'),
      XDG_STATE_HOME: join(home, 'state'),
      npm_config_offline: 'true',
    },
    marker,
    ran: () => (existsSync(marker) ? readFileSync(marker, 'utf8') : undefined),
    markerModule: `import{writeFileSync}from'node:fs';writeFileSync('${marker}','pwned');`,
    async registry(entries) {
      const file = join(home, `entries-${served++}.json`);
      writeFileSync(file, JSON.stringify(entries));
      const registry = await startRemoteFixture('mcp-registry', { REGISTRY_ENTRIES: file });
      t.teardown(() => registry.stop());
      return registry;
    },
  };
}

/** `home`/bin with node, npx and sh, as a user's machine has them: a PATH of their own for mcpmux. */
export function runtimeBin(home: string): string {
  const bin = join(home, 'bin');
  mkdirSync(bin);
  symlinkSync(process.execPath, join(bin, 'node'));
  symlinkSync(join(dirname(process.execPath), 'npx'), join(bin, 'npx'));
  symlinkSync('/bin/sh', join(bin, 'sh')); // npx runs a package's bin through sh
  return bin;
}

/** The memory server's registry entry at the version installed here, its package with `extra` fields. */
export function memoryEntry(extra: Record<string, unknown> = {}): { server: Record<string, unknown> } {
  const version = installedVersion(MEMORY);
  return {
    server: {
      name: 'io.github.modelcontextprotocol/server-memory',
      description: 'Knowledge graph memory',
      version,
      packages: [
        { registryType: 'npm', identifier: MEMORY, version, transport: { type: 'stdio' }, ...extra },
      ],
    },
  };
}

export const MEMORY = '@modelcontextprotocol/server-memory';

/** A port on 127.0.0.1 that nothing listens on (it was free a moment ago). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The version of a package installed here (what npx runs offline). */
export const installedVersion = (pkg: string): string =>
  (JSON.parse(readFileSync(join('node_modules', pkg, 'package.json'), 'utf8')) as { version: string })
    .version;
