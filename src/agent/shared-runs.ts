// What the replicas of a cluster share of their agents: each run lives on the replica that
// started it (its model is that replica's client, its tool calls that replica's children), but
// its transcript and whether it runs are kept where every replica reads them, so that `output`,
// `resume` and `cancel` work through whichever replica a request lands on.
import type { SharedTranscripts } from './transcript.js';

/** A run on another replica, as it last said. */
export interface RunElsewhere {
  readonly replica: string;
  readonly startedAt: number;
  readonly toolUseCount: number;
}

/** A run of this replica, announced while it runs. */
export interface AnnouncedRun {
  /** How far it has got, for the others' `output` (read at each renewal). */
  readonly progress: () => { toolUseCount: number };
  /** Another replica asked to cancel it. */
  readonly cancel: () => void;
}

export interface SharedRuns extends SharedTranscripts {
  /** Says, until `ended`, that this replica runs `id` (said once `ready` settles). */
  announce(id: string, startedAt: number, run: AnnouncedRun): { ready: Promise<void>; ended(): void };
  /** The replica `id` runs on now, if another one. */
  elsewhere(id: string): Promise<RunElsewhere | undefined>;
  /** Asks the replica `id` runs on to cancel it; false when it runs nowhere. */
  cancel(id: string): Promise<boolean>;
}
