// The lifecycle of one child server as an explicit state machine. A crash is not a stop:
// `crashed` keeps why (exit, stderr) until the agent reloads or removes the server, or (with
// a restart policy) `restarting` keeps it while the next attempt waits.
// States change only through `transition`, which refuses moves that make no sense.
import type { Catalog } from '../protocol/capabilities.js';
import type { ExitInfo } from './process/child-process.js';

export type ChildState =
  | { readonly kind: 'idle' }
  | { readonly kind: 'starting'; readonly since: number }
  | { readonly kind: 'running'; readonly since: number; readonly pid?: number; readonly catalog: Catalog }
  | { readonly kind: 'stopping'; readonly since: number }
  | { readonly kind: 'stopped'; readonly exit?: ExitInfo }
  | {
      readonly kind: 'crashed';
      readonly at: number;
      readonly error: string;
      readonly exit?: ExitInfo;
      /** The restart policy tried this many times, then gave up. */
      readonly gaveUpAfter?: number;
    }
  /** Crashed, and to be started again (restart policy): attempt `attempt` of `maxAttempts` at `nextAt`. */
  | {
      readonly kind: 'restarting';
      readonly at: number;
      readonly error: string;
      readonly exit?: ExitInfo;
      readonly attempt: number;
      readonly maxAttempts: number;
      readonly nextAt: number;
    };

export type ChildStateKind = ChildState['kind'];

const ALLOWED: Readonly<Record<ChildStateKind, readonly ChildStateKind[]>> = {
  idle: ['starting', 'stopped'],
  starting: ['running', 'crashed', 'stopping'],
  // running → running replaces the catalog after the child's own list_changed.
  running: ['running', 'stopping', 'crashed'],
  stopping: ['stopped'],
  stopped: ['starting'],
  // crashed → crashed: the restart policy, whose last attempt failed, gives up.
  crashed: ['starting', 'stopping', 'stopped', 'restarting', 'crashed'],
  restarting: ['starting', 'stopping', 'stopped', 'crashed'],
};

export class IllegalTransitionError extends Error {
  override readonly name = 'IllegalTransitionError';
}

/** Returns `next` if the move from `current` is allowed; throws otherwise. */
export function transition(current: ChildState, next: ChildState): ChildState {
  if (!ALLOWED[current.kind].includes(next.kind)) {
    throw new IllegalTransitionError(`illegal child state transition ${current.kind} → ${next.kind}`);
  }
  return next;
}

export const canTransition = (from: ChildStateKind, to: ChildStateKind): boolean =>
  ALLOWED[from].includes(to);

/** The restart policy's next attempt waits: restarting, the crash kept (undefined unless crashed or restarting). */
export function restartingState(
  s: ChildState,
  attempt: number,
  maxAttempts: number,
  nextAt: number,
): ChildState | undefined {
  if (s.kind !== 'crashed' && s.kind !== 'restarting') return undefined;
  const { at, error, exit } = s;
  return { kind: 'restarting', at, error, ...(exit && { exit }), attempt, maxAttempts, nextAt };
}

/**
 * The restart policy gave up after `attempts`: crashed, as without one, saying how often it
 * tried (undefined unless crashed or restarting). A later start forgets it with the crash.
 */
export function gaveUpState(s: ChildState, attempts: number): ChildState | undefined {
  if (s.kind !== 'crashed' && s.kind !== 'restarting') return undefined;
  const { at, error, exit } = s;
  return { kind: 'crashed', at, error, ...(exit && { exit }), gaveUpAfter: attempts };
}
