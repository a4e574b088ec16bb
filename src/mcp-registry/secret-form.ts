// What the person is asked when a registry entry needs secrets that neither the config nor the
// kept store supplies: one form (MCP form elicitation) with a field per secret, its publisher's
// description shown, and a checkbox to keep the answers for next time. The answers go to the
// child's environment only; nothing of them is ever written into a message for the model.
import { MuxError } from '../common/errors.js';
import type { MissingInput } from './resolve-entry.js';

/** The form's checkbox: keep the answers in the secrets folder (variables are named in capitals). */
export const KEEP_FIELD = 'keep_for_next_time';

/** How long the person has to answer: they may have to look a key up. */
export const FORM_TIMEOUT_MS = 15 * 60 * 1000;

export interface SecretFormSubject {
  /** The entry's name and what it runs: `io.github.owner/server (npm pkg@1.2.3)`. */
  readonly what: string;
  /** The entry's title, when it has one. */
  readonly title?: string | undefined;
  /** What will run, secrets as ${NAME}: the command line (a remote: its URL) and the variables set. */
  readonly commandLine: string;
  /** The secrets to ask for. */
  readonly secrets: readonly MissingInput[];
  /** Where kept secrets go, for the checkbox's description. */
  readonly keptIn: string;
}

const WHERE_IT_GOES: Record<MissingInput['kind'], string> = {
  env: 'environment',
  header: 'requests as a header',
  url: 'URL, which mcpmux never shows',
  argument: 'command line',
};

/** The params of the `elicitation/create` request (form mode: `mode` left out, as 2025-06-18 clients know it). */
export function secretForm(subject: SecretFormSubject): Record<string, unknown> {
  const properties: Record<string, Record<string, unknown>> = {};
  for (const secret of subject.secrets)
    properties[secret.name] = {
      type: 'string',
      title: secret.name,
      description:
        (secret.description ? `${secret.description} ` : '') +
        `(secret: it goes to this server's ${WHERE_IT_GOES[secret.kind]} only, never to the model)`,
      minLength: 1,
    };
  properties[KEEP_FIELD] = {
    type: 'boolean',
    title: 'Keep for next time',
    description: `Keep ${subject.secrets.length === 1 ? 'it' : 'them'} in a file only you can read (${subject.keptIn}); mcpmux secrets forget removes ${subject.secrets.length === 1 ? 'it' : 'them'}.`,
    default: false,
  };
  const names = subject.secrets.map((s) => s.name).join(', ');
  return {
    message:
      `The agent asks mcpmux to start ${subject.title ? `${subject.title}, ` : ''}${subject.what}, which needs ${names}. ` +
      'What you enter here is given to that server only: the agent does not see it. ' +
      `It will run: ${subject.commandLine}`,
    requestedSchema: {
      type: 'object',
      properties,
      required: subject.secrets.map((s) => s.name),
    },
  };
}

export interface SecretAnswers {
  readonly values: Record<string, string>;
  readonly keep: boolean;
}

/**
 * The person's answer to `secretForm`: their values and whether to keep them. A decline, a
 * dismissal or a field left empty fails the add, naming only the variables.
 */
export function secretAnswers(answer: Record<string, unknown>, subject: SecretFormSubject): SecretAnswers {
  const names = subject.secrets.map((s) => s.name).join(', ');
  if (answer['action'] !== 'accept')
    throw new MuxError(
      'DECLINED',
      `the person ${answer['action'] === 'decline' ? 'declined' : 'dismissed'} the form for ${names} of ${subject.what}; nothing was started`,
    );
  const content = (answer['content'] ?? {}) as Record<string, unknown>;
  const values: Record<string, string> = {};
  const empty: string[] = [];
  for (const { name } of subject.secrets) {
    const value = content[name];
    if (typeof value === 'string' && value !== '') values[name] = value;
    else empty.push(name);
  }
  if (empty.length > 0)
    throw new MuxError(
      'DECLINED',
      `the form for ${subject.what} came back without ${empty.join(', ')}; nothing was started`,
    );
  return { values, keep: content[KEEP_FIELD] === true };
}
