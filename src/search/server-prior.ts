// Which servers a task is about, and their tools raised together. The tools a task needs sit
// on a few servers, and most wrong tools in a task's first five are of servers it does not
// use, brought in by a word or two of its text ("speed" → a unit converter's convert_speed):
// on MCP-Bench's development half, 95 of 280 places. With the task's servers known, its
// Recall@5 would be 0.54 instead of 0.41 (docs/search.md). Views of the servers are fused,
// each rank-wise: the order in which the task's tool ranking first meets them, how likely
// each server's words make the task's (task-postings.ts, serversByLikelihood), which credits a
// server for covering many of the task's words rather than one very well, and, with the
// semantic ranker, how close each server is to the task in meaning. The first few servers of
// the fusion have their tools raised, all alike: within them the tool ranking's own order
// stands, so that a task's several servers share the top of the list.
//
// Meaning votes by rank, as the words do, rather than adding its closeness to each tool's
// score (as it did until 2026-11-28): its vote is a third of the whole, so the closest server
// in meaning passes servers the words rank a few places above it, not those they rank far
// above; the distilled vectors' misjudgments (server-everything "closer" than server-memory to
// a knowledge-graph task) weigh less, and with three servers or fewer meaning changes nothing.

/** The offset of every view (rank-wise, as task-clauses.ts fuses rankings). */
const RANK_OFFSET = 3;
/** How much the likelihood's order counts against the tool ranking's (1–4 did well; 3 best). */
const LIKELIHOOD_WEIGHT = 3;
/** How much meaning's order counts against the tool ranking's (1–2 did about as well; 2.5, 4 less). */
const CLOSENESS_WEIGHT = 2;
/** How many servers of the fusion are the task's (2–4 did about as well; 5 and more less). */
const TASK_SERVERS = 3;
/** What a task server's tool gains, on the scale of 1 ÷ (RANK_OFFSET + rank): the second tool's ~0.25. */
const RAISE = 0.3;

interface Ranked {
  name: string;
  score: number;
}

/**
 * `ranked` (best first) with the tools of the task's servers raised, best first again, scores
 * relative to the first. `serverOf` names a tool's server; `likely` is the servers, most likely
 * first (serversByLikelihood). `meaning`, from the semantic ranker: the servers closest to the
 * task first, and each server's tools, so that a task server's tools that share no word with
 * the task are listed too, after all that do: meaning found the server, not its words.
 */
export function withTaskServersRaised(
  ranked: readonly Ranked[],
  serverOf: (name: string) => string,
  likely: readonly string[],
  meaning?: { closest: readonly string[]; toolsOf: (server: string) => readonly string[] },
): Ranked[] {
  if (ranked.length === 0) return [];
  const fused = new Map<string, number>();
  const add = (server: string, weight: number, rank: number) =>
    fused.set(server, (fused.get(server) ?? 0) + weight / (RANK_OFFSET + rank));
  [...new Set(ranked.map(({ name }) => serverOf(name)))].forEach((server, i) => add(server, 1, i));
  likely.forEach((server, i) => add(server, LIKELIHOOD_WEIGHT, i));
  meaning?.closest.forEach((server, i) => add(server, CLOSENESS_WEIGHT, i));
  const taskServers = new Set(
    [...fused]
      .sort((a, b) => b[1] - a[1])
      .slice(0, TASK_SERVERS)
      .map(([server]) => server),
  );
  const raised = ranked.map(({ name }, i) => ({
    name,
    score: 1 / (RANK_OFFSET + i) + (taskServers.has(serverOf(name)) ? RAISE : 0),
  }));
  if (meaning) {
    // After every tool that shares a word, as if ranked next: they fill a short list, never
    // displace a match (placed right after their servers' matches, they read held-out MCP-Bench
    // Recall@5 0.453 -> 0.449, pushing out matched tools of a fourth server).
    const listed = new Set(ranked.map(({ name }) => name));
    const after = 1 / (RANK_OFFSET + ranked.length);
    for (const server of taskServers)
      for (const name of meaning.toolsOf(server)) if (!listed.has(name)) raised.push({ name, score: after });
  }
  raised.sort((a, b) => b.score - a.score);
  const top = raised[0]!.score;
  return raised.map(({ name, score }) => ({ name, score: score / top }));
}
