// What OAuth leaves to keep between runs, one file per server URL under
// $XDG_STATE_HOME/mcpmux/oauth (else ~/.local/state/mcpmux/oauth): the tokens, the client
// registered with each authorization server (keyed by its issuer, so that a client ID is
// never shown to another), and what discovery found. Files are 0600 in a 0700 folder, and
// written whole through a temporary file, so a crash never leaves half a token.
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type {
  DpopKeyPair,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { readPrivateFile, writePrivateFile } from '../common/private-file.js';
import { stateDir } from '../common/state-dir.js';

/** A JSON Web Key (RFC 7517), as the SDK's DPoP types name it. */
export type JWK = DpopKeyPair['publicJwk'];

export interface StoredCredentials {
  /** The server these are for (the file name is its hash). */
  url: string;
  tokens?: StoredOAuthTokens;
  /** The issuer of the authorization server that issued them, when the SDK said. */
  tokensIssuer?: string;
  /** When the tokens were saved (ms since the epoch), to refresh before they expire. */
  savedAt?: number;
  /** Registered clients by the issuer of their authorization server. */
  clients?: Record<string, StoredOAuthClientInformation>;
  /**
   * The issuer each client given in the config was first used with (by its client ID): its
   * secret goes to no other authorization server (SEP-2352), even if the server names one.
   */
  configuredClientIssuers?: Record<string, string>;
  discovery?: OAuthDiscoveryState;
  /** The private key DPoP-bound tokens are bound to (dpop-key.ts), and the algorithm it signs with. */
  dpopKey?: { alg: string; jwk: JWK };
  /** The loopback port of the last redirect URI, used again so that its registration stays valid. */
  redirectPort?: number;
}

/** The folder of mcpmux's OAuth files. */
export const oauthStateDir = (env: Readonly<Record<string, string | undefined>> = process.env): string =>
  stateDir('oauth', env);

export class CredentialStore {
  readonly #file: string;
  readonly #url: string;

  constructor(url: string, dir = oauthStateDir()) {
    this.#url = url;
    this.#file = join(dir, `${createHash('sha256').update(url).digest('hex').slice(0, 32)}.json`);
  }

  get path(): string {
    return this.#file;
  }

  /** What is kept; nothing kept reads as {url}. Throws UNSAFE_FILE when the file or its folder is not private. */
  read(): StoredCredentials {
    const text = readPrivateFile(this.#file);
    if (text === undefined) return { url: this.#url };
    try {
      const stored = JSON.parse(text) as StoredCredentials;
      // A hash collision, or a file edited by hand: not this server's.
      return stored.url === this.#url ? stored : { url: this.#url };
    } catch {
      return { url: this.#url };
    }
  }

  update(change: (stored: StoredCredentials) => StoredCredentials): void {
    writePrivateFile(this.#file, JSON.stringify(change(this.read()), null, 2) + '\n');
  }

  /** Forgets everything kept for this server (logout); true when there was something. */
  remove(): boolean {
    try {
      rmSync(this.#file);
      return true;
    } catch {
      return false;
    }
  }
}
