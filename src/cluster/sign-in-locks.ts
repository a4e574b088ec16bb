// The OAuth sign-in lock across a cluster's replicas (oauth/sign-in-lock.ts takes it after its
// own): replicas running one remote server ("placement": "every") renew its tokens when they
// near their end, all at about the same moment, and two renewals with one refresh token are
// one too many for an authorization server that rotates them (it refuses the second, and one
// that detects reuse revokes both). A Redis key per credential file, held with an expiry that is
// renewed while held (a replica that dies holding it frees it within seconds). Once it is held,
// this replica's copy of the file is brought in step with the cluster's (another replica may
// have renewed the tokens a moment ago), and before it is let go, what the work wrote is shared
// at once rather than when the folder's watcher sees it. Redis out of reach: the sign-in goes
// on under this machine's lock alone, since refusing it would stop the server for everyone.
import { randomUUID } from 'node:crypto';
import { basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { messageOf } from '../common/errors.js';
import type { LockAcrossMachines } from '../oauth/sign-in-lock.js';
import { connected, type Client, type RedisConnectionOptions } from './redis-connection.js';
import { RELEASE_IF_HELD, RENEW_IF_HELD } from './server-leases.js';
import type { SharedFolders } from './shared-folders.js';

export interface SignInLocksOptions extends RedisConnectionOptions {
  readonly cluster: string;
  readonly folders: SharedFolders;
}

const HOLD_MS = 15_000;
const POLL_MS = 100;

export class SignInLocks implements LockAcrossMachines {
  readonly #options: SignInLocksOptions;
  readonly #client: Client;

  private constructor(options: SignInLocksOptions, client: Client) {
    this.#options = options;
    this.#client = client;
  }

  static async connect(options: SignInLocksOptions): Promise<SignInLocks> {
    return new SignInLocks(options, await connected(options, 'sign-in'));
  }

  async take(lockPath: string, signal: AbortSignal | undefined): Promise<() => Promise<void>> {
    const file = lockPath.replace(/\.lock$/, '');
    const key = `mcpmux:${this.#options.cluster}:sign-in:${basename(file)}`;
    const holder = `${this.#options.replica}:${randomUUID()}`;
    try {
      while (!(await this.#acquire(key, holder))) await sleep(POLL_MS, undefined, signal ? { signal } : {});
      await this.#options.folders.inStep(file);
    } catch (error) {
      if (signal?.aborted) throw error;
      this.#options.logger.warn(
        `cluster: signing in without the other replicas' lock (${messageOf(error)}): two renewals at once may be refused`,
      );
      return async () => {};
    }
    const renewal = setInterval(
      () =>
        void this.#client
          .eval(RENEW_IF_HELD, { keys: [key], arguments: [holder, String(HOLD_MS)] })
          .catch(() => {}),
      HOLD_MS / 3,
    );
    renewal.unref();
    return async () => {
      clearInterval(renewal);
      await this.#options.folders.shareNow(file);
      await this.#client.eval(RELEASE_IF_HELD, { keys: [key], arguments: [holder] }).catch(() => {});
    };
  }

  close(): void {
    this.#client.destroy();
  }

  async #acquire(key: string, holder: string): Promise<boolean> {
    const set = await this.#client.set(key, holder, {
      condition: 'NX',
      expiration: { type: 'PX', value: HOLD_MS },
    });
    return set === 'OK';
  }
}
