// The ranker search_tools uses, from --search-ranker.
import type { SearchRankerChoice } from '../../cli/parse-cli.js';
import type { Logger } from '../../log.js';
import { Bm25Ranker, type ToolRanker } from '../tool-index.js';
import { StaticEmbedder, missingEmbeddingTable } from './static-embedder.js';
import { SemanticRanker } from './semantic-ranker.js';

/** BM25 fused with the distilled embeddings when this build has them (main.ts refused `semantic` without). */
export function toolRanker(choice: SearchRankerChoice, logger: Logger): ToolRanker {
  if (choice === 'bm25') return new Bm25Ranker();
  const missing = missingEmbeddingTable();
  if (missing !== undefined) {
    logger.debug(`tool search ranks with BM25 alone: no embedding table at ${missing}`);
    return new Bm25Ranker();
  }
  return new SemanticRanker({ embedder: new StaticEmbedder(), logger });
}
