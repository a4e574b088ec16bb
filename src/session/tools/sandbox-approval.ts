// Under --sandbox, what an added server asks beyond the default profile (hosts to reach, folders
// to write) is the person's to allow, never the agent's: they are shown it in a form, and their
// accept, box ticked, lets the add go on with it. Without a form it is refused, saying how the
// operator can give it instead.
import { MuxError } from '../../common/errors.js';
import type { AskPerson } from './person-form.js';

export const ALLOW_SANDBOX_FIELD = 'allow_sandbox';
const FORM_TIMEOUT_MS = 10 * 60_000;

export interface SandboxWidening {
  readonly allowWrite: readonly string[];
  readonly allowedDomains: readonly string[];
}

/** The form that shows the person what the server would be let do, and asks them. */
export function wideningForm(name: string, widening: SandboxWidening): Record<string, unknown> {
  return {
    message:
      `The agent added the MCP server '${name}', which mcpmux runs in the OS sandbox, and asks that it may also:\n` +
      [
        ...widening.allowedDomains.map((host) => `• reach ${host}`),
        ...widening.allowWrite.map((path) => `• write ${path}`),
      ].join('\n') +
      '\n\nA server let reach a host can send it what it reads; one let write a folder can change what is there.',
    requestedSchema: {
      type: 'object',
      properties: {
        [ALLOW_SANDBOX_FIELD]: {
          type: 'boolean',
          title: `Let '${name}' do so`,
          description: 'Otherwise it is not added.',
          default: false,
        },
      },
      required: [ALLOW_SANDBOX_FIELD],
    },
  };
}

/** Asks the person to allow `widening`; throws when they do not, or cannot be asked. */
export async function approveSandboxWidening(
  name: string,
  widening: SandboxWidening,
  askPerson: AskPerson | undefined,
): Promise<void> {
  const asked = [
    ...widening.allowedDomains.map((h) => `reach ${h}`),
    ...widening.allowWrite.map((p) => `write ${p}`),
  ];
  if (!askPerson)
    throw new MuxError(
      'NOT_ALLOWED',
      `server '${name}' asks that it may ${asked.join(', ')} beyond the OS sandbox mcpmux runs added servers in ` +
        '(--sandbox); only the person may allow that, and this client cannot ask them (it has no form elicitation). ' +
        "Add it without those, or the operator gives them in mcpmux's config " +
        `("sandbox": {"network": {"allowedDomains": [...]}, "filesystem": {"allowWrite": [...]}})`,
    );
  const answer: Record<string, unknown> = await askPerson(
    wideningForm(name, widening),
    FORM_TIMEOUT_MS,
  ).catch(() => ({ action: 'cancel' }));
  const content = answer['content'] as Record<string, unknown> | undefined;
  if (answer['action'] === 'accept' && content?.[ALLOW_SANDBOX_FIELD] === true) return;
  throw new MuxError(
    'DECLINED',
    `server '${name}' was not added: the person did not allow it to ${asked.join(', ')}; nothing was started`,
  );
}
