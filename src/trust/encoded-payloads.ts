// Encoded payloads: a run of base64 or hex in a text the model reads that decodes to readable
// text holding a command, a URL or an instruction — something the author chose to hide from a
// person's eye. A hash, a key id or an image's base64 decodes to bytes, not text, and passes.

// Only from the start of a run: a shorter word is not tried again from each of its letters.
const BASE64_RUN = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{24,}={0,2}/g;
const HEX_RUN = /\b(?:[0-9a-fA-F]{2}){16,}\b/g;
/** What makes decoded text a payload rather than data. */
const TELL =
  /https?:\/\/|\b(curl|wget|bash|sh -c|powershell|eval|exec|nc|netcat|chmod|rm -rf|base64 -d|python -c|node -e)\b|\/bin\/|\/etc\/(passwd|shadow)|~\/\.|id_rsa|\.ssh|\.aws|\.env\b|password|secret|token|api[_ ]?key|ignore|instruction|assistant|do not tell|send (it|them|the)|<\/?\w+>/i;

/** Each payload found (up to three): where it starts, and the run with what it decodes to. */
export function encodedPayloads(text: string): { index: number; text: string }[] {
  const found: { index: number; text: string }[] = [];
  for (const match of text.matchAll(BASE64_RUN)) {
    // Base64 of a text has capitals, small letters and digits (or + /) alike; an identifier
    // (a snake_case or camelCase name, a path) lacks one of them, and is not decoded.
    const run = match[0];
    if (!/[A-Z]/.test(run) || !/[a-z]/.test(run) || !/[0-9+/]/.test(run)) continue;
    const decoded = readable(Buffer.from(run.replace(/-/g, '+').replace(/_/g, '/'), 'base64'));
    if (decoded && TELL.test(decoded)) found.push({ index: match.index, text: shown(run, decoded) });
  }
  for (const match of text.matchAll(HEX_RUN)) {
    const decoded = readable(Buffer.from(match[0], 'hex'));
    if (decoded && TELL.test(decoded)) found.push({ index: match.index, text: shown(match[0], decoded) });
  }
  return found.slice(0, 3);
}

/** The bytes as text when nearly all of them are printable ASCII or whitespace (UTF-8 letters allowed). */
function readable(bytes: Buffer): string | undefined {
  if (bytes.length < 12) return undefined;
  const text = bytes.toString('utf8');
  if (text.includes('\uFFFD')) return undefined;
  const unprintable = text.replace(/[\x20-\x7E\t\n\r]|[^\x00-\x7F]/g, '').length;
  return unprintable <= text.length * 0.05 ? text : undefined;
}

function shown(encoded: string, decoded: string): string {
  const head = encoded.length > 40 ? `${encoded.slice(0, 40)}…` : encoded;
  return `${head} (decodes to "${decoded.slice(0, 100).replace(/\s+/g, ' ')}${decoded.length > 100 ? '…' : ''}")`;
}
