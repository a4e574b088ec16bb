// What the semantic ranker needs of a model: texts to vectors (static-embedder.ts).

export interface Embedder {
  /** One vector per text, of length 1, so that a dot product is the cosine. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
  close(): Promise<void>;
}
