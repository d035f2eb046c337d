/** Type-checks one file with the TypeScript compiler and the project's compiler options. */
import { join } from 'node:path';
import ts from 'typescript';
import { ROOT } from '../../lib/paths.ts';

export function typeErrors(file: string): string[] {
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), (f) => ts.sys.readFile(f));
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const program = ts.createProgram([file], options);
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}
