// Flow control from the client back to the children. A child that writes faster than the
// client reads (a server logging a flood of messages) had each of its messages read, parsed
// and queued in mcpmux's memory until the client caught up: 100,000 log messages of 250
// bytes took mcpmux from 68 to 530 MB of RSS. While the stream to the stdio client is backed
// up, no child's stdout is read: the children's pipes fill and their writes wait, as they
// would if they wrote to the client themselves. mcpmux goes on reading the client, so a
// client that waits for its own writes to be taken before it reads cannot deadlock it.
import type { Readable } from 'node:stream';

/** The children's stdout streams, read only while the client keeps up. */
const childOutputs = new Set<Readable>();
/** The client streams backed up now (one on stdio; more only where tests run several). */
let backedUp = 0;

/** Reads of `stream` pause while the client is backed up; the function returned stops that. */
export function throttleByClient(stream: Readable): () => void {
  childOutputs.add(stream);
  if (backedUp > 0) stream.pause();
  return () => {
    childOutputs.delete(stream);
    stream.resume();
  };
}

/** A client stream took no more for now: children stop being read. */
export function clientBackedUp(): void {
  if (backedUp++ === 0) for (const stream of childOutputs) stream.pause();
}

/** It drained (or closed): children are read again once no client stream is backed up. */
export function clientDrained(): void {
  if (backedUp > 0 && --backedUp === 0) for (const stream of childOutputs) stream.resume();
}
