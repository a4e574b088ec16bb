// The word-piece tokenizer: the split whose pieces are likeliest, words marked by "▁".
import t from 'tap';
import { PieceTokenizer } from '../../src/search/semantic/piece-tokenizer.js';

const pieces: [string, number][] = [
  ['<unk>', 0],
  ['▁', -3],
  ['▁the', -2],
  ['▁arx', -9],
  ['iv', -8],
  ['▁arxiv', -12],
  ['▁a', -4],
  ['r', -6],
  ['x', -7],
  ['i', -6],
  ['v', -6],
  ['▁paper', -9],
  ['s', -3],
];
const tokenizer = new PieceTokenizer(pieces, 1);
const words = (text: string) => tokenizer.encode(text).map((id) => pieces[id]![0]);

t.test('the likeliest split, not the first or the longest piece', async (t) => {
  t.same(words('arxiv'), ['▁arxiv'], 'one piece (-12) beats ▁arx + iv (-17)');
  t.same(words('The papers'), ['▁the', '▁paper', 's'], 'lower-cased; words start with ▁');
  t.same(words('  the \n\t papers '), ['▁the', '▁paper', 's'], 'any run of white space is one word break');
});

t.test('what no piece covers is skipped, and reserved ids are never produced', async (t) => {
  t.same(words('the ☃ paper'), ['▁the', '▁', '▁paper'], 'the snowman is stepped over');
  t.same(words(''), [], 'nothing in, nothing out');
  t.notOk(tokenizer.encode('<unk> the').includes(0), 'a reserved piece is not text');
  t.equal(tokenizer.logProb(2), -2);
});
