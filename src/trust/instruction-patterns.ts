// Instructions aimed at the model rather than help for it, by what they try: override its
// instructions, keep something from the person, reach the person's files and secrets, send
// data elsewhere, or put a tool before the others. Each pattern wants a verb and its object
// in one sentence; tuned on 2,974 real tools' descriptions (bench/data) and written attacks
// (bench/poisoning), where `npm run bench:poisoning` measures them. A soft flag: shown to
// the person, never the reason alone to hold a server.

export type InstructionKind = 'override' | 'concealment' | 'secret-access' | 'exfiltration' | 'tool-order';

/**
 * A few words in one sentence: no line break, and no full stop, ! or ? that ends one (followed
 * by a space or the end); a dot inside a word or a path (~/.cursor/mcp.json) is not an end.
 */
const GAP = (n: number) => `(?:[^.!?\\n]|[.!?](?=\\S)){0,${n}}`;

const SENSITIVE_PATHS =
  '(~\\/\\.ssh|\\.ssh\\/|id_rsa|id_ed25519|id_ecdsa|\\.aws\\/(credentials|config)|\\.netrc|\\.npmrc|\\.pypirc|\\.git-credentials|\\.docker\\/config|\\.kube\\/config|\\.gnupg|mcp\\.json|claude_desktop_config|\\/etc\\/(passwd|shadow)|\\.bash_history|\\.zsh_history|wallet\\.dat|login data|cookies\\.sqlite|\\.config\\/gcloud)';
const SECRETS =
  '(ssh keys?|private keys?|api[ _-]?keys?|access tokens?|auth(entication)? tokens?|bearer tokens?|passwords?|passphrases?|credentials|session cookies?|secrets?|environment variables|env vars|seed phrases?|mnemonic)';

/**
 * A rule: its kind, its cue — words (or characters) without which the pattern cannot match,
 * looked up in the text's set of words, so that a rule whose cue is absent costs nothing —
 * and the pattern itself.
 */
export interface InstructionRule {
  kind: InstructionKind;
  cue: { words: readonly string[]; chars: readonly string[] };
  pattern: RegExp;
}

const rule = (kind: InstructionKind, cue: string, source: string): InstructionRule => ({
  kind,
  cue: {
    words: cue.split(' ').filter((w) => !/^\W$/.test(w)),
    chars: cue.split(' ').filter((w) => /^\W$/.test(w)),
  },
  pattern: new RegExp(source, 'i'),
});

/** The cue words found in a text, lower-case: one pass of one pattern made of every rule's cue. */
export function wordsOf(text: string): Set<string> {
  const found = new Set<string>();
  for (const match of text.matchAll(ALL_CUES)) found.add(match[0].toLowerCase());
  return found;
}

/** Whether a rule's cue is in the text: any of its words, or any of its characters. */
export function cued(rule: InstructionRule, words: ReadonlySet<string>, text: string): boolean {
  return rule.cue.words.some((w) => words.has(w)) || rule.cue.chars.some((c) => text.includes(c));
}

export const INSTRUCTION_PATTERNS: readonly InstructionRule[] = [
  rule(
    'override',
    'ignore disregard forget override bypass skip',
    `\\b(ignore|disregard|forget|override|bypass|skip)\\b${GAP(40)}\\b(previous|prior|above|earlier|all|any|other|system|original|existing|safety|security|your|user'?s?)\\b${GAP(30)}\\b(instructions?|prompts?|rules|guidelines|directives|policies|constraints|restrictions|guardrails|warnings|confirmations?)\\b|\\b(ignore|disregard|forget|override|bypass)\\s+(the\\s+|all\\s+|any\\s+)?(instructions?|rules|guidelines|directives|policies)\\s+(set|given|provided|written|from)\\b${GAP(10)}\\b(user|operator|system|developer|human)\\b`,
  ),
  rule(
    'override',
    '< [ #',
    `<\\s*\\/?\\s*(important|system|instructions?|secret|hidden|admin|critical|override|assistant_?only)\\s*>|\\[\\s*(SYSTEM|INST|ADMIN|IMPORTANT)\\s*\\]|<\\|im_start\\|>|(^|\\n)\\s*#{1,3}\\s*(system|instructions?)\\s*:?\\s*(\\n|$)`,
  ),
  rule(
    'override',
    'you instruction instructions prompt precedence priority developer override void obsolete cancelled canceled revoked superseded longer',
    `\\byou are (now|no longer)\\b|\\b(new|updated|real|true) (system )?instructions?\\s*:|\\b(reveal|print|output|repeat|show)\\b${GAP(20)}\\b(your|the) (system prompt|instructions)\\b|\\b(takes?|has|have) (precedence|priority) over\\b${GAP(40)}\\b(instructions?|user|rules|other tools?)|\\benable developer mode\\b|\\b(system|admin|security|safety) override\\b|\\b(previous|prior|earlier|above|all|any|other|existing) (guidance|instructions|rules|directives|guidelines)\\b${GAP(20)}\\b(void|obsolete|cancell?ed|revoked|superseded|no longer appl(y|ies))\\b`,
  ),
  rule(
    'concealment',
    'tell inform mention reveal disclose show notify alert warn let bring',
    `\\b(do not|don't|dont|never|must not|should not|shouldn't|mustn't)\\s+(tell|inform|mention|reveal|disclose|show|notify|alert|warn|let on|bring up)\\b${GAP(40)}\\b(the )?(user|human|person|people|operator|them|anyone)\\b|\\b(never|do not|don't|dont|must not|should not) let (the )?(user|human|person|people|operator|them|anyone) (know|see|find out|notice|learn)\\b`,
  ),
  rule(
    'concealment',
    'without keep hide not never secretly covertly surreptitiously silently invisible hidden',
    `\\bwithout (telling|informing|notifying|alerting|warning|asking)\\b${GAP(20)}\\b(the )?(user|human|person|them)\\b|\\bwithout (the )?(user'?s?|human'?s?|person'?s?|their) (knowledge|consent|approval|permission)\\b|\\b(keep|hide)\\s+(this|it|these|that|the \\w+)\\b${GAP(25)}\\b(secret|hidden|confidential|from the (user|human|person))\\b|\\bthe (user|human|person) (must|should|need|needs to) (not|never) (know|see|be told|be aware|notice|find out)\\b|\\b(secretly|covertly|surreptitiously)\\b|\\bsilently (send|forward|copy|include|add|call|read|upload|attach|transmit|log|record)\\b|\\b(invisible|not visible|hidden) (to|from) the (user|human|person)\\b`,
  ),
  rule(
    'secret-access',
    'ssh rsa ed25519 ecdsa aws netrc npmrc pypirc credentials docker kube gnupg mcp claude etc history bash zsh wallet login cookies gcloud',
    `\\b(read|open|cat|load|fetch|get|retrieve|access|grab|collect|extract|copy|include|attach|upload|send|dump|list)\\b${GAP(60)}${SENSITIVE_PATHS}`,
  ),
  rule(
    'secret-access',
    'key keys apikey api token tokens password passwords passphrase passphrases credentials cookie cookies secret secrets environment env seed mnemonic',
    `\\b(contents? of|the user'?s|their|all|any)\\b${GAP(40)}\\b${SECRETS}\\b${GAP(60)}\\b(as|in|into|inside|within)\\b${GAP(20)}\\b(the )?(\`?\\w+\`?\\s+)?(parameter|argument|field|param|sidenote|side note|note|notes|metadata|comment|context)\\b`,
  ),
  rule(
    'exfiltration',
    "http https following attacker attacker's external remote @",
    `\\b(send|forward|post|upload|transmit|exfiltrate|copy|report|leak|mirror|relay|bcc|cc)\\b${GAP(60)}\\b(to|at)\\b\\s*(https?:\\/\\/|[\\w.+-]+@[\\w-]+\\.[a-z]{2,}|the (following|attacker'?s?|external|remote) (url|address|endpoint|email|server|webhook))|\\b(bcc|cc)\\b:?\\s*(to\\s+)?[\\w.+-]+@[\\w-]+\\.[a-z]{2,}`,
  ),
  rule(
    'exfiltration',
    'bcc cc blind forward copy mirror recipient address account wallet iban payee beneficiary',
    `\\b(always|also|every|all|each)\\b${GAP(40)}\\b(bcc|cc|blind.copy|forward|copy|mirror)\\b${GAP(40)}(@|https?:\\/\\/)|\\b(change|replace|redirect|swap|set)\\b${GAP(30)}\\b(recipient|destination|to address|account number|wallet address|iban|payee|beneficiary)\\b${GAP(40)}\\b(to|with)\\b`,
  ),
  rule(
    'exfiltration',
    'conversation history messages prompt context dialog dialogue transcript',
    `\\b(include|attach|append|add|send|pass|put|copy)\\b${GAP(30)}\\b(the )?(entire |full |whole |complete |previous |prior |all )(conversation|chat history|message history|messages|system prompt|context window|dialog(ue)?|transcript)\\b`,
  ),
  rule(
    'tool-order',
    'before after instead prior',
    `\\b(before|after|instead of|prior to)\\s+(using|calling|invoking|running|executing|answering|responding|replying)\\s+(to )?(any|every|all|each)\\s+(other\\s+)?(tools?|actions?|requests?|responses?|questions?|messages?|functions?|servers?)\\b`,
  ),
  rule(
    'tool-order',
    'every each all instead other',
    `\\b(for|on|with|in) (every|each|all) (request|message|query|task|conversation|turn|prompt|interaction)s?\\b${GAP(40)}\\b(call|use|invoke|run|execute)\\b|\\binstead of (using|calling|invoking)\\b${GAP(10)}\\b(the )?\`?\\w+[_-]\\w+\`?|\\b(never|do not|don't) (use|call|invoke)\\b${GAP(10)}\\bother\\b${GAP(20)}\\b(tools?|servers?|functions?)\\b`,
  ),
];

/** Every rule's cue words as one pattern, longest first so that "messages" is not read as "message". */
const ALL_CUES = new RegExp(
  `(?<![a-z0-9'])(${[...new Set(INSTRUCTION_PATTERNS.flatMap((r) => r.cue.words))]
    .sort((x, y) => y.length - x.length)
    .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('|')})(?![a-z0-9'])`,
  'gi',
);
