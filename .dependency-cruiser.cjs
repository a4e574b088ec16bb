// The import rules of src/, checked by `npm run check:imports` (part of `npm test`) with
// dependency-cruiser: no circle between modules, type imports included, and no import from
// a lower layer to a higher one. The layers, from the top (what starts mcpmux) to the bottom
// (what everything may use), are written down here and nowhere else; folders on one line are
// one layer, and may use each other (without a circle). docs/development.md, "Rooms and
// layers", says why each room is where it is.
const LAYERS = [
  ['main.ts', 'bin.ts', 'serve.ts', 'wiring', 'internals.ts', 'process-exit.ts'],
  ['cli', 'config', 'clients'],
  ['session', 'transport'],
  ['agent', 'code', 'mcp-registry', 'telemetry', 'cluster'],
  ['search', 'results'],
  ['router'],
  ['children'],
  ['sandbox'],
  ['child', 'oauth', 'policy', 'trust'],
  ['protocol'],
  ['secrets'],
  ['common'],
];

/** A path pattern for a layer's folders and top-level files. */
const pattern = (names) =>
  `^src/(${names.map((n) => (n.endsWith('.ts') ? n.replace('.', '\\.') + '$' : `${n}/`)).join('|')})`;

const upward = LAYERS.slice(1).map((layer, i) => ({
  name: `no-upward-from-${layer[0].replace('.ts', '')}`,
  comment: `${layer.join(', ')} may not import what stands above it: ${LAYERS.slice(0, i + 1)
    .flat()
    .join(', ')}`,
  severity: 'error',
  from: { path: pattern(layer) },
  to: { path: pattern(LAYERS.slice(0, i + 1).flat()) },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment:
        'A circle of imports, type imports included: a type both sides need goes down into a module both import.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    ...upward,
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/' },
    includeOnly: '^src/',
  },
};
