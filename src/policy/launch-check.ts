// Whether a pattern that matches a runner's command line also names what the line asks the
// runner to fetch or allow: a package from anywhere but its registry (a folder, a tarball,
// git, a URL, an alias) and an option that changes where code comes from or what a container
// may reach pass only where the pattern's token at that place names the same form or option
// (`npx -y ./servers/*`, `docker run --network=host …`). A glob that happens to match the
// text does not: `@modelcontextprotocol/*` means packages of that scope from the registry.
import { formOfText, type LaunchPart, type PackageForm } from './package-launch.js';

const FORM_WORDS: Record<Exclude<PackageForm, 'registry'>, string> = {
  local: 'a local folder or file',
  git: 'a git repository',
  url: 'a download from a URL',
  alias: 'an alias of another package',
  unreadable: 'not a package spec npm can read',
};

/**
 * Why `parts` of `args` are not allowed by a pattern with these tokens (by index), or by any
 * of `tokens` when it is a set (the operator's words anywhere: for a registry entry's launch);
 * undefined when they are.
 */
export function launchRefusal(
  parts: readonly LaunchPart[],
  args: readonly string[],
  tokens: readonly string[] | ReadonlySet<string>,
): string | undefined {
  for (const part of parts) {
    const candidates = Array.isArray(tokens) ? [tokens[part.index]] : [...tokens];
    const named = candidates.some((token) => token !== undefined && names(token, part));
    if (named) continue;
    if (part.kind === 'option') return `${part.option} (${part.why})`;
    if (part.form !== 'registry')
      return `${JSON.stringify(args[part.index])} (${FORM_WORDS[part.form]}, not a package from the registry)`;
  }
  return undefined;
}

/** Whether a pattern's token names this option, or this form of package, itself. */
function names(token: string, part: LaunchPart): boolean {
  if (part.kind === 'option') return token === part.option || token.startsWith(`${part.option}=`);
  return part.form === 'registry' || (part.form !== 'unreadable' && formOfText(token) === part.form);
}
