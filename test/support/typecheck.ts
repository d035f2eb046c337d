/** Type-checks one file with the TypeScript compiler and the project's compiler options. */
import { join } from 'node:path';
import ts from 'typescript';
import { ROOT } from '../../lib/paths.ts';

/**
 * The files an earlier check read (the lib files, the project's), parsed once: only the checked file is read again, so
 * a caller may change the checked file between checks but nothing it imports.
 */
const parsed = new Map<string, ts.SourceFile | undefined>();

export function typeErrors(file: string): string[] {
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), (f) => ts.sys.readFile(f));
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile;
  host.getSourceFile = (name, ...rest) => {
    if (name === file) return read(name, ...rest);
    if (!parsed.has(name)) parsed.set(name, read(name, ...rest));
    return parsed.get(name);
  };
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}
