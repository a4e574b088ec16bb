// What a running mcpmux holds back from the model, written where `mcpmux approve` and
// `mcpmux pins diff` read it: one 0600 file per held server identity under
// $XDG_STATE_HOME/mcpmux/held, with the held items' text as the server shows it now (and as
// approved, for a changed one) and the scanner's flags. The person's view, never the model's.
// A server with nothing held has no file.
import { rmSync } from 'node:fs';
import { readPrivateFile, writePrivateFile } from '../common/private-file.js';
import { stateDir } from '../common/state-dir.js';
import type { Flag } from './poison-scan.js';
import { identityFile, readIdentityFiles } from './pin-store.js';
import type { HoldReason } from './trust-gate.js';

export interface HeldItem {
  /** `kind:key` ("tool:add"). */
  key: string;
  reason: HoldReason;
  /** What the model would be shown of it now. */
  shown: Record<string, unknown>;
  /** What was approved of it, for a changed one. */
  before?: Record<string, unknown>;
  flags: Flag[];
}

export interface HeldRecord {
  /** The name it runs under in the mcpmux that holds it. */
  name: string;
  identity: string;
  /** The whole server is held: added by the agent from strangers' code, or a hard flag raised. */
  serverHeld?: 'server-held' | 'hard-flag';
  items: HeldItem[];
  at: string;
  /** The mcpmux that holds it. */
  pid: number;
}

export class HeldRecords {
  readonly #dir: string;

  constructor(dir = stateDir('held')) {
    this.#dir = dir;
  }

  write(record: HeldRecord): void {
    writePrivateFile(identityFile(this.#dir, record.identity), JSON.stringify(record, null, 1) + '\n');
  }

  read(identity: string): HeldRecord | undefined {
    const text = readPrivateFile(identityFile(this.#dir, identity));
    return text === undefined ? undefined : (JSON.parse(text) as HeldRecord);
  }

  remove(identity: string): void {
    rmSync(identityFile(this.#dir, identity), { force: true });
  }

  list(): HeldRecord[] {
    return readIdentityFiles<HeldRecord>(this.#dir);
  }
}
