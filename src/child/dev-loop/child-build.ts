// An MCP server author's dev loop: the server's build (watch.build), run in its cwd and
// environment like the server itself, and the watcher of its sources that asks for a
// rebuild and reload when they change.
import { MuxError, messageOf } from '../../common/errors.js';
import type { Logger } from '../../common/log.js';
import type { Spawner } from '../child-types.js';
import type { ServerSpec } from '../server-spec.js';
import { runToCompletion } from '../process/child-process.js';
import type { ChildStatus } from '../child-status.js';
import { SourceWatcher } from './source-watcher.js';
import { describeEnd } from '../process/exit-words.js';

type BuildReport = NonNullable<ChildStatus['last_build']>;

/** A build that failed or timed out, with its report for list_servers. */
class BuildFailed extends MuxError {
  readonly report: BuildReport;

  constructor(message: string, report: BuildReport) {
    super('BUILD_FAILED', message);
    this.report = report;
  }
}

/**
 * Runs the build; resolves with its report, or throws BuildFailed with the end of its output
 * (SERVER_STOPPED, with no report, when `signal` stopped it).
 */
async function runBuild(
  name: string,
  spec: ServerSpec,
  options: { spawnPolicy: Spawner; buildTimeoutMs?: number | undefined },
  signal: AbortSignal,
): Promise<BuildReport> {
  const build = spec.transport === 'stdio' ? spec.watch?.build : undefined;
  if (spec.transport !== 'stdio' || !build) {
    throw new MuxError(
      'INVALID_ARGUMENTS',
      `server '${name}' has no build command; give watch.build (e.g. ["npm", "run", "build"]) when adding it`,
    );
  }
  const policy = options.spawnPolicy;
  const cwd = policy.workingDirectory(name, spec);
  const line = [build.command, ...build.args].join(' ');
  const run = await runToCompletion(
    {
      command: build.command,
      args: build.args,
      env: { ...policy.baseEnv, ...spec.env },
      ...(cwd !== undefined && { cwd }),
    },
    { timeoutMs: options.buildTimeoutMs ?? 300_000, signal },
  );
  if (run.aborted) throw new MuxError('SERVER_STOPPED', `the build of server '${name}' was stopped with it`);
  const ok = run.exit.code === 0 && !run.timedOut;
  const tail = run.output.trimEnd().split('\n').slice(-20);
  const report: BuildReport = {
    ok,
    seconds: Math.round(run.ms / 100) / 10,
    ...(!ok && { output_tail: tail }),
  };
  if (ok) return report;
  const why = run.timedOut ? 'timed out' : `failed (${describeEnd(run.exit)})`;
  throw new BuildFailed(
    `build of server '${name}' (${line}) ${why}; the running process is kept\n${tail.join('\n')}`,
    report,
  );
}

/** Watches the sources of a server with `watch`; undefined when it has none (or its cwd is refused). */
function watchSources(
  name: string,
  spec: ServerSpec,
  policy: Spawner,
  log: Logger,
  onChange: (paths: string[]) => void,
): SourceWatcher | undefined {
  if (spec.transport !== 'stdio' || !spec.watch) return undefined;
  let cwd: string;
  try {
    cwd = policy.workingDirectory(name, spec) ?? process.cwd();
  } catch (error) {
    log.warn(`[${name}] not watching its sources: ${messageOf(error)}`);
    return undefined;
  }
  return new SourceWatcher({
    cwd,
    globs: spec.watch.paths,
    debounceMs: spec.watch.debounceMs,
    onChange,
    onError: (error) => log.warn(`[${name}] watching its sources: ${error.message}`),
  });
}

/** A server's dev loop as its connection holds it: the watcher, the build, the last build's report. */
export class DevLoop {
  /** The last build, for list_servers. */
  lastBuild: BuildReport | undefined;
  readonly #name: string;
  readonly #spec: ServerSpec;
  readonly #options: { spawnPolicy: Spawner; buildTimeoutMs?: number | undefined };
  readonly #watcher: SourceWatcher | undefined;
  /** Aborts when the server stops for good: a build under way is stopped with it. */
  readonly #closed = new AbortController();

  constructor(
    name: string,
    spec: ServerSpec,
    options: { spawnPolicy: Spawner; buildTimeoutMs?: number | undefined; logger: Logger },
    /** A change of the watched files: the children rebuild and reload it. */
    onChange: (paths: string[]) => void,
  ) {
    this.#name = name;
    this.#spec = spec;
    this.#options = options;
    this.#watcher = watchSources(name, spec, options.spawnPolicy, options.logger, onChange);
  }

  /** Whether the server has a build command (watch.build). */
  get canBuild(): boolean {
    return this.#spec.transport === 'stdio' && this.#spec.watch?.build !== undefined;
  }

  /**
   * Runs the build in the server's cwd and environment. The running process is not
   * touched; a failure throws BUILD_FAILED with the end of the build's output.
   */
  async build(): Promise<void> {
    try {
      this.lastBuild = await runBuild(this.#name, this.#spec, this.#options, this.#closed.signal);
    } catch (error) {
      if (error instanceof BuildFailed) this.lastBuild = error.report;
      throw error;
    }
  }

  /** Stops watching, and any build under way (the server is removed or mcpmux shuts down). */
  close(): void {
    this.#watcher?.close();
    this.#closed.abort();
  }
}
