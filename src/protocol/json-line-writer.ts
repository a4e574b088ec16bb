// Writing newline-delimited JSON-RPC (MCP's stdio framing) to the client and to each child:
// the messages of one tick, or of one chunk of input being read, go out in one system call.
import type { Writable } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { serializeMessage } from './json-serialization.js';

interface BatchAccepted {
  promise: Promise<void>;
  settle: (error?: Error) => void;
}

/**
 * How many readers are handing over a chunk's lines now, and the flushes of the writers
 * posted to meanwhile: those go out as the chunk is done, in the same callback, rather than
 * on the next tick. A forwarded call is read and written within one chunk, and a tick of
 * its own for each write was a measurable part of a sequential call's cost.
 */
let chunksBeingRead = 0;
let flushesAtChunkEnd: (() => void)[] = [];

/** A reader starts handing over a chunk's lines. */
export function chunkReadStarts(): void {
  chunksBeingRead++;
}

/** It is done: once no reader is, the writes posted meanwhile leave. */
export function chunkReadEnds(): void {
  if (--chunksBeingRead === 0 && flushesAtChunkEnd.length > 0) {
    const flushes = flushesAtChunkEnd;
    flushesAtChunkEnd = [];
    for (const flush of flushes) flush();
  }
}

/** Who is told when a writer's stream backs up and when it drains (client-backpressure.ts). */
export interface WriterFlow {
  backedUp(): void;
  drained(): void;
  /** A batch was taken at once (a pipe often takes a large one whole): the backlog shrank with no drain. */
  wrote?(): void;
}

/**
 * Writes messages as lines. Messages sent in the same tick (or while one chunk of input is
 * read) go out in one write: a burst of 200 responses costs one system call and one wake-up
 * of the reader, not 200.
 */
export class JsonLineWriter {
  readonly #stream: Writable;
  /** Lines of this tick, written together once the tick's microtasks have run (a line may be in pieces). */
  #batch: (string | Buffer)[] = [];
  /** Whether a piece of the batch is bytes: then it is written as one buffer, not one string. */
  #batchHasBytes = false;
  /** Writes the batch; made once, so that a message costs no closure. */
  readonly #flushBatch = () => this.#flush();
  /** Settles when the current batch has been accepted by the stream; made only when someone waits. */
  #batchAccepted: BatchAccepted | undefined;
  /** Set while the stream is backed up: the next batch waits for 'drain'. */
  #drained: Promise<void> | undefined;
  /** The batch's size (text counted by its length), for the backlog. */
  #batchLength = 0;
  /** When the stream backed up (Date.now()), while it is. */
  #backedUpAt: number | undefined;
  /** Set while nothing may be written (hold()): the batch waits for it. */
  #held: Promise<void> | undefined;

  /** Told when the stream stops taking writes, and when it drains or closes after that. */
  readonly #flow: WriterFlow | undefined;

  constructor(stream: Writable, flow?: WriterFlow) {
    this.#stream = stream;
    this.#flow = flow;
  }

  /**
   * What waits to reach the reader, in bytes (text counted by its length): the stream's own
   * buffer and the batch not yet handed to it. Grows without end while the reader reads nothing.
   */
  get backlog(): number {
    return this.#stream.writableLength + this.#batchLength;
  }

  /** Since when (Date.now()) the stream has been backed up; undefined while it takes writes. */
  get backedUpSince(): number | undefined {
    return this.#backedUpAt;
  }

  /** Resolves once the stream accepted the line (at once unless it is backed up); rejects for one that cannot be written. */
  write(message: JSONRPCMessage): Promise<void> {
    let line: string;
    try {
      line = serializeMessage(message);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.writeLine(line);
  }

  /** The same for a message already serialized (one line of JSON, no newline). */
  writeLine(json: string): Promise<void> {
    this.postLine(json);
    if (!this.#batchAccepted) {
      let settle!: (error?: Error) => void;
      const promise = new Promise<void>((resolve, reject) => {
        settle = (error) => (error ? reject(error) : resolve());
      });
      this.#batchAccepted = { promise, settle };
    }
    return this.#batchAccepted.promise;
  }

  /**
   * Writes a message with nobody waiting for it (the forwarding fast path's): no promise is
   * made for it. A failed write shows as the stream's 'error', which the transports watch.
   */
  post(message: JSONRPCMessage): void {
    this.postLine(serializeMessage(message));
  }

  postLine(json: string): void {
    this.#batchLength += json.length + 1;
    if (this.#batch.push(json + '\n') === 1) this.#scheduleFlush();
  }

  /**
   * Writes one line given in pieces, bytes and text (a child's answer with the client's id
   * spliced in): the bytes are copied once into the write, never decoded.
   */
  postPieces(pieces: readonly (string | Buffer)[]): void {
    if (this.#batch.length === 0) this.#scheduleFlush();
    for (const piece of pieces) {
      this.#batch.push(piece);
      this.#batchLength += piece.length;
    }
    this.#batch.push('\n');
    this.#batchLength++;
    this.#batchHasBytes = true;
  }

  #scheduleFlush(): void {
    // nextTick runs after the current microtasks, so every send of this tick is in.
    if (chunksBeingRead > 0) flushesAtChunkEnd.push(this.#flushBatch);
    else process.nextTick(this.#flushBatch);
  }

  /**
   * Writes nothing until the returned release is called with the line to write first (an
   * answer that must lead: mcpmux's initialize answer, held while the configured servers
   * start); what was posted meanwhile follows it, in order.
   */
  hold(): (first: JSONRPCMessage) => void {
    let open!: () => void;
    const held = (this.#held = new Promise<void>((resolve) => (open = resolve)));
    return (first) => {
      if (this.#held !== held) return;
      const line = serializeMessage(first) + '\n';
      this.#batch.unshift(line);
      this.#batchLength += line.length;
      this.#held = undefined;
      // A batch posted during the hold has its flush waiting on it; else this line needs one.
      if (this.#batch.length === 1) this.#scheduleFlush();
      open();
    };
  }

  /** Writes the batch at once, or once the stream has drained when it is backed up. */
  #flush(): void {
    if (this.#held) void this.#flushWhenDrained(this.#held);
    else if (this.#drained) void this.#flushWhenDrained(this.#drained);
    else if (this.#batch.length > 0) this.#write();
  }

  async #flushWhenDrained(drained: Promise<void>): Promise<void> {
    try {
      await drained;
    } catch (error) {
      // The stream closed: whoever waits for this batch is told.
      this.#batchAccepted?.settle(error as Error);
      return;
    }
    this.#flush();
  }

  // Synchronous, with no promise of its own: the usual batch (a line or two of one call) is
  // written in the tick it was posted, for nothing more than the write.
  #write(): void {
    const lines = this.#batch;
    const hasBytes = this.#batchHasBytes;
    const accepted = this.#batchAccepted;
    this.#batch = [];
    this.#batchLength = 0;
    this.#batchHasBytes = false;
    this.#batchAccepted = undefined;
    let written: boolean;
    try {
      written = this.#stream.write(
        hasBytes ? concatPieces(lines) : lines.length === 1 ? lines[0]! : (lines as string[]).join(''),
      );
    } catch (error) {
      accepted?.settle(error as Error);
      return;
    }
    if (written) {
      accepted?.settle();
      this.#flow?.wrote?.();
      return;
    }
    this.#backedUpAt ??= Date.now();
    this.#flow?.backedUp();
    const drained = (this.#drained = this.#waitForDrain());
    if (accepted) drained.then(() => accepted.settle(), accepted.settle);
    else drained.catch(() => {});
  }

  #waitForDrain(): Promise<void> {
    const stream = this.#stream;
    return new Promise<void>((resolve, reject) => {
      const done = (error?: Error) => {
        stream.off('drain', onDrain);
        stream.off('close', onClose);
        this.#drained = undefined;
        this.#backedUpAt = undefined;
        this.#flow?.drained();
        if (error) reject(error);
        else resolve();
      };
      const onDrain = () => done();
      const onClose = () => done(new StreamClosedError());
      stream.once('drain', onDrain);
      stream.once('close', onClose);
    });
  }
}

/** Text and bytes as one buffer: one allocation, each piece written or copied into it once. */
function concatPieces(pieces: readonly (string | Buffer)[]): Buffer {
  let size = 0;
  for (const piece of pieces) size += typeof piece === 'string' ? Buffer.byteLength(piece) : piece.length;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const piece of pieces) at += typeof piece === 'string' ? out.write(piece, at) : piece.copy(out, at);
  return out;
}

/** A message could not be written: the other side closed the stream (a child going away). */
export class StreamClosedError extends Error {
  override readonly name = 'StreamClosedError';
  constructor() {
    super('the stream closed before it accepted the message');
  }
}
