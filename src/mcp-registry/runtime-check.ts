// Whether the command a registry entry runs through (npx, uvx, docker) is on the machine: an
// entry whose runtime is missing fails before anything is spawned, saying what to install,
// rather than as a spawn error the person has to decode.
import { resolveCommand, type CommandLookup } from '../policy/command-resolver.js';
import { RUNTIMES } from './resolve-entry.js';

type Runtime = (typeof RUNTIMES)[keyof typeof RUNTIMES];

/** What provides each runtime, and where to get it. */
const INSTALL: Record<Runtime, string> = {
  npx: 'Node.js with npm (https://nodejs.org), which brings npx',
  uvx: 'uv (https://docs.astral.sh/uv/getting-started/installation/), which brings uvx',
  docker: 'Docker (https://docs.docker.com/get-started/get-docker/), or Podman with its docker command',
};

const isRuntime = (command: string): command is Runtime => Object.hasOwn(INSTALL, command);

/**
 * Why `command` cannot run here, or undefined when it can (or is not a registry runtime):
 * `what` names the entry and its package, as the message's subject.
 */
export function missingRuntime(command: string, what: string, lookup: CommandLookup): string | undefined {
  if (!isRuntime(command) || resolveCommand(command, lookup)) return undefined;
  return `${what} runs through ${command}, which is not on mcpmux's PATH: install ${INSTALL[command]}, then add it again`;
}
