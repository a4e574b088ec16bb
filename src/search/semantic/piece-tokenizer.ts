// Text to the word pieces of the Universal Sentence Encoder's vocabulary: a unigram
// segmentation (as SentencePiece's), the split whose pieces' log-probabilities sum highest.
// A word starts with "▁", as in the vocabulary; a character no piece covers is skipped.

const WORD_START = '\u2581';

export class PieceTokenizer {
  readonly #index = new Map<string, number>();
  readonly #logProb: Float64Array;
  readonly #longest: number;

  /** `pieces[i]` is the piece with id i and its log-probability; the first `reserved` are not text. */
  constructor(pieces: readonly (readonly [string, number])[], reserved: number) {
    this.#logProb = new Float64Array(pieces.length);
    let longest = 1;
    pieces.forEach(([piece, logProb], id) => {
      this.#logProb[id] = logProb;
      if (id < reserved) return;
      this.#index.set(piece, id);
      longest = Math.max(longest, piece.length);
    });
    this.#longest = longest;
  }

  /** The log-probability of a piece (how common it is). */
  logProb(id: number): number {
    return this.#logProb[id]!;
  }

  /** The ids of the pieces of `text`, lower-cased, in order. */
  encode(text: string): number[] {
    const words = text.normalize('NFKC').toLowerCase().trim();
    if (words === '') return [];
    const input = WORD_START + words.replace(/\s+/g, WORD_START);
    const n = input.length;
    // best[end]: the highest score of a split of input[0, end); from[end]: where its last piece starts.
    const best = new Float64Array(n + 1).fill(-Infinity);
    const from = new Int32Array(n + 1);
    const piece = new Int32Array(n + 1).fill(-1);
    best[0] = 0;
    for (let start = 0; start < n; start++) {
      if (best[start] === -Infinity) continue;
      let covered = false;
      for (let end = start + 1; end <= Math.min(n, start + this.#longest); end++) {
        const id = this.#index.get(input.slice(start, end));
        if (id === undefined) continue;
        covered = true;
        const score = best[start]! + this.#logProb[id]!;
        if (score > best[end]!) {
          best[end] = score;
          from[end] = start;
          piece[end] = id;
        }
      }
      // A character no piece starts with: stepped over, at a cost that any real piece beats.
      if (!covered && best[start]! - 100 > best[start + 1]!) {
        best[start + 1] = best[start]! - 100;
        from[start + 1] = start;
        piece[start + 1] = -1;
      }
    }
    const ids: number[] = [];
    for (let end = n; end > 0; end = from[end]!) if (piece[end]! >= 0) ids.push(piece[end]!);
    return ids.reverse();
  }
}
