/**
 * The size limits, checked: files over 450 lines and functions over 60 (declaration to closing brace) in the trees
 * named (default: functions/). Prints each offender, largest first, and exits 1 when there is one.
 * Usage: tsx bin/size-limits.ts [dir ...]
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

export const MAX_FILE_LINES = 450;
export const MAX_FUNCTION_LINES = 60;

export interface Oversize {
  file: string;
  name?: string;
  lines: number;
}

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (/\.tsx?$/.test(entry) && !entry.endsWith('.d.ts')) yield path;
  }
}

function nameOf(node: ts.Node, sf: ts.SourceFile): string {
  const named = node as { name?: ts.Node };
  if (named.name) return named.name.getText(sf);
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))) return parent.name.getText(sf);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  return `(anonymous at line ${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1})`;
}

/** The files and functions of `dirs` over the limits. */
export function oversized(dirs: string[]): Oversize[] {
  const found: Oversize[] = [];
  for (const dir of dirs) {
    for (const file of sources(dir)) {
      const text = readFileSync(file, 'utf8');
      const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
      if (lines > MAX_FILE_LINES) found.push({ file, lines });
      const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node) => {
        if (ts.isFunctionLike(node) && 'body' in node && node.body) {
          const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
          const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
          if (end - start + 1 > MAX_FUNCTION_LINES) found.push({ file, name: nameOf(node, sf), lines: end - start + 1 });
        }
        ts.forEachChild(node, visit);
      };
      visit(sf);
    }
  }
  return found.sort((a, b) => b.lines - a.lines);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dirs = process.argv.slice(2);
  const found = oversized(dirs.length ? dirs : ['functions']);
  for (const o of found) console.log(`${o.lines}\t${o.file}${o.name ? ` ${o.name}()` : ''}`);
  console.log(found.length ? `${found.length} over the limits (${MAX_FILE_LINES} lines a file, ${MAX_FUNCTION_LINES} a function)` : 'within the limits');
  process.exitCode = found.length ? 1 : 0;
}
