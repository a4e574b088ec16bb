// What a ranking of tools is given and gives back (the contract of bm25-ranker.ts and
// semantic/), and how a tool's name reads as words: below the index and its rankers alike,
// so the index can load a ranker when first needed without either importing the other.
import type { Tool } from '@modelcontextprotocol/server';

export interface IndexedTool {
  readonly name: string;
  readonly server: string;
  /** The child's tool object (identity changes when the tool does). */
  readonly tool: Tool;
}

/** One tool in a ranking, with the query words it matched when the ranker knows them. */
export interface RankedTool {
  name: string;
  score: number;
  matched?: readonly string[];
}

/** A ranking of tools for a query: BM25 (bm25-ranker.ts), or BM25 fused with meaning (semantic/). */
export interface ToolRanker {
  /** Brings the ranker's view to `tools` (called only when the tool set changed). */
  update(tools: ReadonlyMap<string, IndexedTool>): void;
  rank(
    query: string,
    options: { limit: number; server?: string | undefined },
  ): RankedTool[] | Promise<RankedTool[]>;
  /** Starts, in the background, the work a first search would otherwise wait for. */
  prepare?(): void;
  /** Frees what the ranker holds (an embedding table). */
  close?(): Promise<void>;
}

/** A word that nameWords leaves whole: letters and digits, a capital only first. */
const PLAIN_WORD = /^[A-Za-z0-9][a-z0-9]*$/;

/** Words of a name: camelCase, snake_case, kebab-case and digits split apart. */
export function nameWords(name: string): string[] {
  // Most words of a text have no inner capital and nothing to split: one word, lower-cased.
  if (PLAIN_WORD.test(name)) return [name.toLowerCase()];
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}
