// json-schema-to-typescript (with prettier and lodash under it, ~23 MB of an install) serves
// code mode alone, so it is an optional dependency: `npm install --omit=optional` leaves it
// out. Then `--expose code` says so as mcpmux starts, before any server is spawned, instead
// of failing when code mode is first loaded.
const OPTIONAL_FOR_CODE_MODE = ['json-schema-to-typescript'];

/** The packages code mode needs that this install lacks. */
export function missingCodeModePackages(): string[] {
  return OPTIONAL_FOR_CODE_MODE.filter((name) => {
    try {
      import.meta.resolve(name);
      return false;
    } catch {
      return true;
    }
  });
}
