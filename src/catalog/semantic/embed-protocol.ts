// Messages between mcpmux and its embedding worker (embed-worker.ts).

/** Texts to turn into vectors, answered under the same id. */
export interface EmbedRequest {
  id: number;
  texts: string[];
}

export type FromEmbedWorker =
  | { type: 'ready' }
  /** One vector of `dimensions` numbers per text, each of length 1, end to end. */
  | { type: 'vectors'; id: number; dimensions: number; vectors: Float32Array }
  | { type: 'failed'; id: number; error: string };
