// A stdio child's unread input, bounded. A server that stops reading its stdin (stopped,
// spinning in a loop, blocked on a lock) leaves every request written to it in mcpmux's
// memory; a client that keeps calling it (each call times out, the agent tries again) grew
// that without end: 90 MB of calls to a SIGSTOPped server took mcpmux from 75 to 193 MB of
// RSS. Past the bound, a request to it is refused at once, saying why, until it reads again;
// what is already written stays, and notifications and answers to the child still go.
import { megabytes } from '../../common/byte-sizes.js';
import { MuxError } from '../../common/errors.js';

/** A child's input as its writer sees it (json-line-writer.ts). */
export interface ChildInput {
  /** Bytes waiting to reach the child. */
  readonly backlog: number;
  /** Since when (Date.now()) the child's stdin has been full, while it is. */
  readonly backedUpSince: number | undefined;
}

/**
 * Why a request to the child may not be written now, or undefined. The bound is the
 * largest message (--max-message-bytes): a request of any size allowed is taken while
 * less than that waits (a server that reads keeps far below it: the kernel's buffer holds
 * a few hundred KB), and what is held for a hung one stays under two of the largest.
 */
export function inputRefusal(name: string, input: ChildInput, bound: number): MuxError | undefined {
  const waiting = input.backlog;
  if (waiting < bound) return undefined;
  const since = input.backedUpSince;
  const full =
    since === undefined ? '' : `, and its input has been full for ${seconds(Date.now() - since)} s`;
  return new MuxError(
    'SERVER_BUSY',
    `server '${name}' is not reading its input: ${megabytes(waiting)} of requests wait for it, ` +
      `past the bound of ${megabytes(bound)} (--max-message-bytes)${full}. It may be hung or stopped ` +
      `(list_servers shows its pings); try again once it reads, or call reload_server {"name":"${name}"}`,
  );
}

/** What list_servers shows of a child whose stdin is full: how much waits, and for how long. */
export function inputStatus(
  input: ChildInput | undefined,
  now: number,
): { unread_input_bytes: number; input_full_seconds: number } | undefined {
  const since = input?.backedUpSince;
  if (input === undefined || since === undefined) return undefined;
  return { unread_input_bytes: input.backlog, input_full_seconds: seconds(now - since) };
}

const seconds = (ms: number) => Math.round(ms / 100) / 10;
