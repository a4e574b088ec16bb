// Texts to vectors with the embedding table distilled at build time from the Universal
// Sentence Encoder (scripts/distill-embeddings.js): a text's vector is the sum of its word
// pieces' vectors, each weighted by how rare the piece is (smooth inverse frequency,
// a ÷ (a + p)), so that "the" and "s" say little and "arxiv" much. A task of 200 words
// costs ~1 ms (most of it the tokenizer); the table, 4 MB, is read at the first use.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Embedder } from './embedder.js';
import { PieceTokenizer } from './piece-tokenizer.js';

// Next to the built chunk; from source (tests), in the build's output.
const TABLE_DIR = new URL(
  import.meta.url.endsWith('.ts') ? '../../../dist/embeddings/' : './embeddings/',
  import.meta.url,
);

/** Smooth inverse frequency's a: a piece as common as this weighs half. */
const SIF_A = 1e-3;

interface Table {
  tokenizer: PieceTokenizer;
  dimensions: number;
  scales: Float32Array;
  rows: Int8Array;
}

/** Where the table is expected, when this build has none (made without the model's packages). */
export function missingEmbeddingTable(): string | undefined {
  const dir = fileURLToPath(TABLE_DIR);
  return existsSync(new URL('vectors.bin', TABLE_DIR)) && existsSync(new URL('vocabulary.json', TABLE_DIR))
    ? undefined
    : dir;
}

export class StaticEmbedder implements Embedder {
  #table: Table | undefined;

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const table = (this.#table ??= readTable());
    return texts.map((text) => embedOne(table, text));
  }

  async close(): Promise<void> {
    this.#table = undefined;
  }
}

function readTable(): Table {
  const vocabulary = JSON.parse(readFileSync(new URL('vocabulary.json', TABLE_DIR), 'utf8')) as {
    dimensions: number;
    reserved: number;
    pieces: [string, number][];
  };
  const bytes = readFileSync(new URL('vectors.bin', TABLE_DIR));
  const count = vocabulary.pieces.length;
  const scales = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + count * 4));
  const rows = new Int8Array(bytes.buffer, bytes.byteOffset + count * 4, count * vocabulary.dimensions);
  return {
    tokenizer: new PieceTokenizer(vocabulary.pieces, vocabulary.reserved),
    dimensions: vocabulary.dimensions,
    scales,
    rows,
  };
}

function embedOne({ tokenizer, dimensions, scales, rows }: Table, text: string): Float32Array {
  const vector = new Float32Array(dimensions);
  for (const id of tokenizer.encode(text)) {
    const weight = (SIF_A / (SIF_A + Math.exp(tokenizer.logProb(id)))) * scales[id]!;
    const base = id * dimensions;
    for (let d = 0; d < dimensions; d++) vector[d]! += weight * rows[base + d]!;
  }
  let norm = 0;
  for (let d = 0; d < dimensions; d++) norm += vector[d]! * vector[d]!;
  norm = Math.sqrt(norm) || 1;
  for (let d = 0; d < dimensions; d++) vector[d]! /= norm;
  return vector;
}
