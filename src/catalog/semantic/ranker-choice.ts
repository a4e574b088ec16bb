// The ranker search_tools uses, from --search-ranker.
import type { SearchRankerChoice } from '../../cli/parse-cli.js';
import type { Logger } from '../../log.js';
import { Bm25Ranker, type ToolRanker } from '../tool-index.js';
import { WorkerEmbedder, missingEmbeddingPackages } from './embedder.js';
import { SemanticRanker } from './semantic-ranker.js';

/** BM25 fused with the embedding model when its packages are installed (main.ts refused `semantic` without them). */
export function toolRanker(choice: SearchRankerChoice, logger: Logger): ToolRanker {
  if (choice === 'bm25') return new Bm25Ranker();
  const missing = missingEmbeddingPackages();
  if (missing.length > 0) {
    logger.debug(`tool search ranks with BM25 alone: not installed: ${missing.join(', ')}`);
    return new Bm25Ranker();
  }
  return new SemanticRanker({ embedder: new WorkerEmbedder(), logger });
}
