// What the person is asked before a held server's text reaches the model: one form (MCP form
// elicitation) with what the server runs, each of its tools, prompts and templates as the
// model would read them (hidden characters written out), the scanner's flags on each, and a
// checkbox to release it. The model sees none of this: the form goes to the person through
// the client, and only their accept, with the box ticked, releases the server.
import type { Catalog } from '../protocol/capabilities.js';
import { readable } from './hidden-characters.js';
import { HARD_KINDS, type Flag } from './poison-scan.js';
import { describeChange, itemKey } from './pin-store.js';
import { listedItems } from './trust-gate.js';

/** The form's checkbox: release the server to the model. */
export const RELEASE_FIELD = 'release';

/** How long the person has to read and decide. */
export const APPROVAL_TIMEOUT_MS = 15 * 60 * 1000;

/** Past this, the form's message names the rest and says where to read them (`mcpmux inspect`). */
const MESSAGE_CHARS = 24_000;
const ITEM_CHARS = 4_000;

export interface ApprovalSubject {
  name: string;
  /** What it runs: its command line, or its URL. */
  identity: string;
  /** Why it is held. */
  why: 'server-held' | 'hard-flag';
  /** All it lists. */
  catalog: Catalog;
  flags: ReadonlyMap<string, readonly Flag[]>;
}

/** The params of the `elicitation/create` request (form mode, as 2025-06-18 clients know it). */
export function approvalForm(subject: ApprovalSubject): Record<string, unknown> {
  const items = listedItems(subject.catalog);
  const lines: string[] = [];
  let length = 0;
  let shown = 0;
  for (const item of items) {
    const text = itemText(item.kind, item.item, subject.flags.get(itemKey(item)) ?? []);
    if (length + text.length > MESSAGE_CHARS) break;
    lines.push(text);
    length += text.length;
    shown++;
  }
  if (shown < items.length)
    lines.push(`… and ${items.length - shown} more: \`mcpmux pins diff ${subject.name}\` shows every one.`);
  const why =
    subject.why === 'hard-flag'
      ? "mcpmux's scanner raised a flag that honest text does not raise (marked ⚠ below)"
      : 'it runs code from strangers (a registry entry, a package fetched to run, or a server on another machine)';
  return {
    message:
      `The agent added the MCP server '${subject.name}', which runs: ${subject.identity}\n` +
      `Its text is held from the agent because ${why}. A tool's description is read by the model as instructions: ` +
      `read what it would be told, and release it only if you trust it.\n\n` +
      (items.length === 0 ? '(It lists no tools, prompts or templates.)' : lines.join('\n\n')),
    requestedSchema: {
      type: 'object',
      properties: {
        [RELEASE_FIELD]: {
          type: 'boolean',
          title: `Let the agent see and use '${subject.name}'`,
          description: `Its ${items.length} tools, prompts and templates as shown above; a later change to any of them is held again for you.`,
          default: false,
        },
      },
      required: [RELEASE_FIELD],
    },
  };
}

/** Whether the person's answer releases the server: accepted, with the box ticked. */
export function releases(answer: Record<string, unknown>): boolean {
  const content = answer['content'] as Record<string, unknown> | undefined;
  return answer['action'] === 'accept' && content?.[RELEASE_FIELD] === true;
}

/** A flag as the person reads it: ⚠ for a hard one (it holds the server), its kind, where, and the text that raised it. */
export function flagLine(flag: Flag): string {
  return `${HARD_KINDS.has(flag.kind) ? '⚠' : '•'} ${flag.kind} in ${flag.where}: ${flag.text}`;
}

/** An item as the person reads it: its name, its text, its schema's descriptions, and its flags. */
function itemText(kind: string, item: Readonly<Record<string, unknown>>, flags: readonly Flag[]): string {
  const name = String(item['uriTemplate'] ?? item['name']);
  const fields = describeChange({}, item)
    .filter(({ field }) => field !== 'name')
    .map(({ field, after }) => `  ${field}: ${readable(after)}`);
  const text = [`${kind} ${readable(name)}`, ...fields].join('\n');
  const cut = text.length > ITEM_CHARS ? `${text.slice(0, ITEM_CHARS)}… (${text.length} characters)` : text;
  const marks = flags.map((f) => `  ${flagLine(f)}`);
  return [cut, ...marks].join('\n');
}

export interface ChangeSubject {
  name: string;
  identity: string;
  /** `kind:key` of the item. */
  key: string;
  reason: 'changed' | 'new';
  /** What the model would be shown of it now. */
  item: Readonly<Record<string, unknown>>;
  /** What was approved of it, for a changed one. */
  before?: Readonly<Record<string, unknown>> | undefined;
  flags: readonly Flag[];
}

/**
 * The form for one item held since the server was approved (elicitation/create params): a
 * changed one as the diff of what the model was shown and what it would be, a new one whole;
 * the flags on it; a box to release it.
 */
export function changeForm(subject: ChangeSubject): Record<string, unknown> {
  const [kind, ...rest] = subject.key.split(':');
  const own = rest.join(':');
  const lines =
    subject.reason === 'changed'
      ? describeChange(subject.before ?? {}, subject.item).map(
          ({ field, before, after }) =>
            `${field}, approved:\n${readable(before)}\n${field}, now:\n${readable(after)}`,
        )
      : [itemText(kind!, subject.item, [])];
  const marks = subject.flags.map(flagLine);
  const text = [...lines, ...marks].join('\n\n');
  return {
    message:
      `The MCP server '${subject.name}' (${subject.identity}) ` +
      (subject.reason === 'changed'
        ? `changed its ${kind} '${readable(own)}' since you approved it. The agent called it; it is held until you approve the change:\n\n`
        : `lists a new ${kind} '${readable(own)}' since you approved it. The agent called it; it waits for you:\n\n`) +
      (text.length > MESSAGE_CHARS
        ? `${text.slice(0, MESSAGE_CHARS)}… (\`mcpmux pins diff ${subject.name}\` shows all)`
        : text),
    requestedSchema: {
      type: 'object',
      properties: {
        [RELEASE_FIELD]: {
          type: 'boolean',
          title: `Let the agent see and use '${own}' as it is now`,
          default: false,
        },
      },
      required: [RELEASE_FIELD],
    },
  };
}
