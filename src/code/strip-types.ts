// A program's TypeScript becomes the script a sandbox runs: esbuild strips the types (it does
// not check them: a type error is no run-time error) and the body is wrapped in an async
// function, so a program may `await` and `return` at its top level. Syntax errors come back
// with the line and column of the program as written. An error in the returned value keeps
// its name and message, which JSON drops (`Promise.allSettled` over tool calls returns them).
import { transform, type Message } from 'esbuild';
import { MuxError } from '../common/errors.js';

// One line before the program: error positions are shifted back by it.
const HEAD = 'const __mcpmux_main = async () => {\n';
const TAIL = `
};
__mcpmux_main().then((value) => {
  const json = JSON.stringify(value, (key, v) => (v instanceof Error ? { name: v.name, message: v.message, ...v } : v));
  return json === undefined ? "null" : json;
})`;

/** The script for a sandbox, or a CODE_SYNTAX error that says where the program is wrong. */
export async function toSandboxScript(code: string): Promise<string> {
  if (/^\s*(import|export)\s[^(]/m.test(code)) {
    throw new MuxError(
      'CODE_SYNTAX',
      'a program cannot import or export modules: call tools through the global `tools` object, e.g. await tools.memory.read_graph({})',
    );
  }
  try {
    const { code: script } = await transform(HEAD + code + TAIL, {
      loader: 'ts',
      target: 'es2022',
      format: 'esm',
      sourcefile: 'program.ts',
      logLevel: 'silent',
    });
    return script;
  } catch (error) {
    const errors = (error as { errors?: Message[] }).errors ?? [];
    if (errors.length === 0) throw error;
    const where = errors.map(({ text, location }) =>
      location ? `line ${location.line - 1}, column ${location.column + 1}: ${text}` : text,
    );
    throw new MuxError('CODE_SYNTAX', `the program does not parse: ${where.join('; ')}`);
  }
}
