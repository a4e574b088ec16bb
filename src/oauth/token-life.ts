// When a kept token is renewed before use: with less than a minute left, or less than half
// its life when that is shorter (a token that lives two minutes is renewed after one), so a
// request never goes out with a token about to lapse on the way.
const MARGIN_MS = 60_000;

/** Whether a token issued at `issuedAt` and expiring at `expiresAt` (ms since the epoch) is due for renewal. */
export function nearsItsEnd(issuedAt: number, expiresAt: number, now = Date.now()): boolean {
  return expiresAt - now <= Math.min(MARGIN_MS, (expiresAt - issuedAt) / 2);
}
