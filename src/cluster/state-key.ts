// The secret every replica of a cluster shares (MCPMUX_STATE_KEY): what they keep in Redis is
// sealed with it (AES-256-GCM, so Redis alone reads nothing and a changed value is refused),
// and the token of their internal hop is derived from it. One key per purpose, derived with
// HKDF, so that no use of one can stand in for another.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { MuxError } from '../common/errors.js';

export const STATE_KEY_VARIABLE = 'MCPMUX_STATE_KEY';

/** Shorter than this, a key is too easy to guess (32 characters of base64 is 24 random bytes). */
const MIN_KEY_CHARS = 32;
const SEALED_PREFIX = 'sealed1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export type SealPurpose = 'registry' | 'results' | 'secrets' | 'tokens' | 'pins' | 'agent-runs';

export class StateKey {
  readonly #secret: Buffer;
  #hopToken: string | undefined;
  readonly #sealKeys = new Map<SealPurpose, Buffer>();

  private constructor(secret: Buffer) {
    this.#secret = secret;
  }

  /** The key from its text; MuxError saying how to make one when it is missing or short. */
  static from(text: string | undefined): StateKey {
    if (text === undefined || text.trim() === '')
      throw new MuxError(
        'INVALID_ARGUMENTS',
        `a cluster needs ${STATE_KEY_VARIABLE}, the same secret on every replica (make one with \`openssl rand -base64 32\`): ` +
          'what replicas keep in Redis is sealed with it, and their hop to each other is authenticated with it',
      );
    if (text.trim().length < MIN_KEY_CHARS)
      throw new MuxError(
        'INVALID_ARGUMENTS',
        `${STATE_KEY_VARIABLE} has ${text.trim().length} characters; it needs at least ${MIN_KEY_CHARS} (make one with \`openssl rand -base64 32\`)`,
      );
    return new StateKey(Buffer.from(text.trim(), 'utf8'));
  }

  /** `plaintext` sealed for `purpose`, bound to `context` (a server's name: a value moved to another name does not open). */
  seal(purpose: SealPurpose, context: string, plaintext: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#derive(purpose), iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return SEALED_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** What `seal` sealed; MuxError when it was sealed with another key, for another context, or changed. */
  open(purpose: SealPurpose, context: string, sealed: string): string {
    const raw = sealed.startsWith(SEALED_PREFIX)
      ? Buffer.from(sealed.slice(SEALED_PREFIX.length), 'base64url')
      : Buffer.alloc(0);
    if (raw.length < IV_BYTES + TAG_BYTES) throw notOpened(purpose, context);
    const decipher = createDecipheriv('aes-256-gcm', this.#derive(purpose), raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      throw notOpened(purpose, context);
    }
  }

  /**
   * The key that signs 2026-07-28 requestStates: the same on every replica, so that the next
   * round of a call may land on any of them.
   */
  requestStateKey(): Uint8Array {
    return new Uint8Array(hkdfSync('sha256', this.#secret, 'mcpmux', 'request-state', 32));
  }

  /** The bearer token replicas show each other on their internal hop (derived once: each hop request checks it). */
  hopToken(): string {
    return (this.#hopToken ??= Buffer.from(
      hkdfSync('sha256', this.#secret, 'mcpmux', 'hop-token', 32),
    ).toString('base64url'));
  }

  /** Whether `token` is the hop's, compared in constant time. */
  isHopToken(token: string): boolean {
    const expected = Buffer.from(this.hopToken());
    const given = Buffer.from(token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  #derive(purpose: SealPurpose): Buffer {
    let key = this.#sealKeys.get(purpose);
    if (!key)
      this.#sealKeys.set(
        purpose,
        (key = Buffer.from(hkdfSync('sha256', this.#secret, 'mcpmux', `seal:${purpose}`, 32))),
      );
    return key;
  }
}

function notOpened(purpose: SealPurpose, context: string): MuxError {
  return new MuxError(
    'CLUSTER_UNAVAILABLE',
    `a value kept in Redis (${purpose} of '${context}') does not open with this replica's ${STATE_KEY_VARIABLE}: ` +
      'every replica of a cluster needs the same key, and nothing but mcpmux may write its keys',
  );
}
