// What code mode's tool definitions say before code mode is loaded: its limits and the
// prelude of the tools module. Kept apart so that listing execute_code (or reserving its
// name) does not load esbuild, json-schema-to-typescript and QuickJS for every mcpmux.
export const DEFAULT_TIMEOUT_SECONDS = 30;
export const MAX_TIMEOUT_SECONDS = 120;

export const MODULE_PRELUDE = `// In a program: await tools.<server>.<tool>(args). A call resolves to the tool's structured
// result, or its text (parsed when it is JSON); a failed call throws ToolError (name, message, tool).
declare const tools: Tools;
declare class ToolError extends Error { tool: string }`;
