// What connecting a generation (child-connect.ts) reads and tells of its connection
// (child-connection.ts), and what the starts of one server learn and keep across
// generations: the types between the two, below both, as what lists the catalog and links
// the stdio process needs of them too.
import type { PriorDiscovery } from '@modelcontextprotocol/client';
import type { Logger } from '../common/log.js';
import type { CapabilityRow } from '../protocol/capabilities.js';
import type { ServerSpec } from './server-spec.js';
import type { ServerSignIn } from '../oauth/server-sign-in.js';
import type { ChildProcess } from './process/child-process.js';
import type { ChildConnectionOptions } from './child-types.js';
import type { Generation } from './generation.js';

/** What connecting needs of the connection it is for (ChildConnection). */
export interface ConnectHost {
  readonly name: string;
  readonly spec: ServerSpec;
  readonly options: ChildConnectionOptions;
  readonly log: Logger;
  /** What the starts of the server learnt and are given, across generations. */
  readonly memory: ConnectMemory;
  /** Called on both signs of the generation's end (exit, close). */
  noticeEnd(gen: Generation): void;
  /** Re-lists `rows` of the generation now, or once the child has been quiet for a moment. */
  relist(gen: Generation, rows: readonly CapabilityRow[]): void;
  relistWhenQuiet(gen: Generation, rows: readonly CapabilityRow[]): void;
  /** Whether `gen` is the running generation. */
  runs(gen: Generation): boolean;
  /** A remote server that nothing answers for any more: judged lost (its crash). */
  lostRemote(gen: Generation, error: unknown): boolean;
}

export interface ConnectMemory {
  /** The era the server spoke last time, so that a restart skips the probe. */
  era: PriorDiscovery | undefined;
  /** The last start failed because the server exited on the era probe: it is started again at once, with initialize. */
  exitedOnProbe: boolean;
  /** A process spawned before the first start (a configured server): that start adopts it. */
  spawned: Promise<ChildProcess> | undefined;
  /** A remote server with OAuth: its sign-in, kept across generations (tokens, the waiting URL). */
  signIn?: ServerSignIn;
}
