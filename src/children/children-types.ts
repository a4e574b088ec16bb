// What the children are made with, and what their changes answer: a started, reloaded or
// removed server as add_server, reload_server and remove_server report it.
import type { Tool } from '@modelcontextprotocol/server';
import type { ChildConnectionOptions } from '../child/child-types.js';
import type { ChildStatus } from '../child/child-status.js';
import type { ChildProcess } from '../child/process/child-process.js';
import type { Logger } from '../common/log.js';
import type { TrustKeeper } from '../trust/trust-keeper.js';
import type { AddedBy } from '../trust/quarantine.js';
import type { ToolDiff } from './catalog-diff.js';
import type { ChildConnection } from '../child/child-connection.js';
import type { Catalog } from '../protocol/capabilities.js';
import type { RestartRun } from './restart-run.js';

export interface StartedServer {
  status: ChildStatus;
  tools: readonly Tool[];
}

export interface ReloadedServer extends StartedServer {
  changes: ToolDiff;
  /** It had never run before (its first start was under way): `changes` holds every tool as added. */
  firstRun?: boolean;
}

export interface RemovedServer {
  name: string;
  /** Child tool names that were withdrawn. */
  tools: string[];
  /** The prefix they were exposed under, when it was not the default. */
  prefix?: string;
  exit?: ChildStatus['exit'];
}

export interface ChildrenOptions {
  logger: Logger;
  /** Checks a server name before anything is spawned; returns why it is not acceptable. */
  validateName?: (name: string) => string | undefined;
  /** Options shared by every child connection. */
  connection: Omit<ChildConnectionOptions, 'name' | 'spec' | 'onEvent' | 'logger'>;
  /** What of each server's lists clients may see; absent: all of it (one-shot commands). */
  trust?: TrustKeeper;
}

/** How `add` starts a server. */
export interface AddOptions {
  /** Who asked for it: the agent's adds may be held (--quarantine). Default: the operator. */
  addedBy?: AddedBy;
  /** Config servers: a failed start stays listed as `crashed`, so reload_server can retry it. */
  keepOnFailure?: boolean;
  /** A local child is spawned at once but spoken to only once this settles. */
  handshakeAfter?: Promise<void>;
  /** Its process, already spawned (main.ts spawns the configured servers before the rest loads). */
  spawned?: Promise<ChildProcess>;
  /**
   * Resolve as soon as the server waits for a person to sign in (OAuth) rather than when
   * it runs: its status then says needs_auth, and its start goes on (a failure is logged).
   */
  returnWhenSigningIn?: boolean;
}

/** A server in the set: its connection, and what its reloads and restarts keep of it. */
export interface Entry {
  readonly connection: ChildConnection;
  /** Tools of the last running generation, for the diff a reload reports; undefined until one has run. */
  lastTools: readonly Tool[] | undefined;
  reloading?: Promise<ReloadedServer> | undefined;
  /** What stays listed while it restarts: the old catalog, until the new process has listed its own. */
  shown?: Catalog | undefined;
  /** Its restart policy at work since its last crash. */
  restarts?: RestartRun | undefined;
}
