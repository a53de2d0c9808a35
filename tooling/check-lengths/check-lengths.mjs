#!/usr/bin/env node
// No source function over 120 lines and no source file over 500 lines (tests, fixtures, declaration
// and generated files aside). What was over them when the rule came is listed, with its length, in
// length-exceptions.json: a listed one may shrink, never grow, and its entry shrinks with it.
// `--update` writes the entries down to what is there now (it never adds one nor raises one);
// `--report` lists everything over the limits, listed or not.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The limits, in lines. */
export const LIMITS = Object.freeze({ functionLines: 120, fileLines: 500 });

/** Where the exceptions are listed, from the repository's root. */
export const EXCEPTIONS_FILE = 'tooling/check-lengths/length-exceptions.json';

const SOURCE = /\.(?:[cm]?[jt]s|[jt]sx)$/;
const NOT_SOURCE = [
  /\.(?:test|spec)\.[^/]+$/,
  /(?:^|\/)__(?:fixtures|tests)__\//,
  /\.d\.[cm]?ts$/,
  /(?:^|\/)(?:node_modules|dist)\//,
];
/** A generated file says so in its first lines (openapi-typescript writes "auto-generated"). */
const GENERATED = /@generated|auto-generated|do not edit/i;

/** Whether a file (a path from the root, with `/`) is source the limits apply to, judged by its path. */
export function isSourcePath(file) {
  return SOURCE.test(file) && !NOT_SOURCE.some((pattern) => pattern.test(file));
}

/** Whether a file's text says it was generated. */
export function isGenerated(text) {
  return GENERATED.test(text.slice(0, 500));
}

/** Lines of a text as `wc -l` counts them, a last line without its newline included. */
export function lineCount(text) {
  if (text === '') return 0;
  let lines = 0;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) lines += 1;
  return text.endsWith('\n') ? lines : lines + 1;
}

function scriptKindOf(file) {
  if (file.endsWith('.tsx')) return ts.ScriptKind.TSX;
  if (file.endsWith('.jsx')) return ts.ScriptKind.JSX;
  if (/\.[cm]?js$/.test(file)) return ts.ScriptKind.JS;
  return ts.ScriptKind.TS;
}

function shortText(node, source) {
  const text = node.getText(source).replace(/\s+/g, ' ');
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

function nameText(name, source) {
  return ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name)
    ? name.text
    : shortText(name, source);
}

/** The name of a function where it is written, without the names of the functions around it. */
function ownName(node, source) {
  const parent = node.parent;
  const className = (member) =>
    member.parent && (ts.isClassLike(member.parent) || ts.isObjectLiteralExpression(member.parent))
      ? member.parent.name?.text
      : undefined;
  const member = (name) => {
    const owner = className(node);
    return owner === undefined ? name : `${owner}.${name}`;
  };
  if (ts.isConstructorDeclaration(node)) return member('constructor');
  if (ts.isGetAccessorDeclaration(node)) return member(`get ${nameText(node.name, source)}`);
  if (ts.isSetAccessorDeclaration(node)) return member(`set ${nameText(node.name, source)}`);
  if (node.name !== undefined) {
    return ts.isMethodDeclaration(node) ? member(nameText(node.name, source)) : nameText(node.name, source);
  }
  if (ts.isVariableDeclaration(parent)) return nameText(parent.name, source);
  if (ts.isPropertyAssignment(parent)) return nameText(parent.name, source);
  if (ts.isPropertyDeclaration(parent)) {
    const owner = parent.parent?.name?.text;
    return owner === undefined ? nameText(parent.name, source) : `${owner}.${nameText(parent.name, source)}`;
  }
  if (ts.isBinaryExpression(parent) && parent.right === node) return shortText(parent.left, source);
  if (ts.isExportAssignment(parent)) return 'default export';
  if (ts.isJsxExpression(parent) && parent.parent && ts.isJsxAttribute(parent.parent)) {
    return `${nameText(parent.parent.name, source)} attribute`;
  }
  if ((ts.isCallExpression(parent) || ts.isNewExpression(parent)) && parent.expression !== node) {
    const callee = ts.isNewExpression(parent)
      ? `new ${shortText(parent.expression, source)}`
      : shortText(parent.expression, source);
    return `${callee}() callback`;
  }
  return '<anonymous>';
}

/**
 * Every function of a source file with its length in lines (from its first token to its closing
 * brace, comments before it aside) and its name: the names of the functions it is in, then its own
 * (`outer > inner`, `Class.method`, `describe() callback`), `#2`, `#3`, ... after a name met again.
 */
export function measureFunctions(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, scriptKindOf(file));
  const functions = [];
  const seen = new Map();
  const visit = (node, outer) => {
    let inner = outer;
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.end).line;
      let name = [...outer, ownName(node, source)].join(' > ');
      const count = (seen.get(name) ?? 0) + 1;
      seen.set(name, count);
      if (count > 1) name = `${name} #${count}`;
      functions.push({ name, line: start + 1, lines: end - start + 1 });
      inner = [...outer, ownName(node, source)];
    }
    ts.forEachChild(node, (child) => visit(child, inner));
  };
  visit(source, []);
  return functions;
}

/** The key of a function in the exceptions: `path#name`. */
export function functionKey(file, name) {
  return `${file}#${name}`;
}

/**
 * What is over the limits in `files` (`{ path, text }`, source only): `files` maps each file over the
 * file limit to its lines, `functions` each function over the function limit (`path#name`) to its.
 */
export function measure(files, limits = LIMITS) {
  const over = { files: {}, functions: {}, lines: {} };
  for (const { path: file, text } of files) {
    const lines = lineCount(text);
    if (lines > limits.fileLines) over.files[file] = lines;
    for (const measured of measureFunctions(file, text)) {
      if (measured.lines <= limits.functionLines) continue;
      const key = functionKey(file, measured.name);
      over.functions[key] = measured.lines;
      over.lines[key] = measured.line;
    }
  }
  return over;
}

/**
 * Compares what is over the limits with the listed exceptions. Each problem is one line that says
 * what to do: split what is new over a limit or grew past its entry; lower an entry that shrank; remove
 * one no longer over its limit (or gone).
 */
export function compare(over, exceptions, limits = LIMITS) {
  const problems = [];
  const kinds = [
    ['files', 'file', limits.fileLines],
    ['functions', 'function', limits.functionLines],
  ];
  for (const [group, kind, limit] of kinds) {
    const listed = exceptions[group] ?? {};
    for (const [key, lines] of Object.entries(over[group])) {
      const where =
        group === 'functions' && over.lines[key] !== undefined ? ` (line ${over.lines[key]})` : '';
      const allowed = listed[key];
      if (allowed === undefined) {
        problems.push(`${key}${where}: ${lines} lines, over the ${limit}-line limit for a ${kind}: split it`);
      } else if (lines > allowed) {
        problems.push(
          `${key}${where}: ${lines} lines, more than the ${allowed} it is listed with: a listed ${kind} may not grow, split it`,
        );
      } else if (lines < allowed) {
        problems.push(
          `${key}: ${lines} lines, fewer than the ${allowed} it is listed with: lower its entry (check-lengths --update)`,
        );
      }
    }
    for (const [key, allowed] of Object.entries(listed)) {
      if (over[group][key] === undefined) {
        problems.push(
          `${key}: listed with ${allowed} lines, no longer a ${kind} over ${limit} lines: remove its entry (check-lengths --update)`,
        );
      }
    }
  }
  return problems;
}

/** The exceptions lowered to what is over the limits now: entries shrink or go, none is added or raised. */
export function shrinkExceptions(over, exceptions) {
  const shrunk = { ...exceptions };
  for (const group of ['files', 'functions']) {
    const entries = {};
    for (const [key, allowed] of Object.entries(exceptions[group] ?? {})) {
      const lines = over[group][key];
      if (lines !== undefined) entries[key] = Math.min(lines, allowed);
    }
    shrunk[group] = entries;
  }
  return shrunk;
}

/** The source files of the repository at `root`: tracked and new ones (what `.gitignore` ignores aside). */
export function sourceFiles(root) {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const files = [];
  for (const file of new Set(listed.split('\0'))) {
    if (file === '' || !isSourcePath(file)) continue;
    const full = path.join(root, file);
    // Deleted in the work tree but still in the index.
    if (!existsSync(full)) continue;
    const text = readFileSync(full, 'utf8');
    if (!isGenerated(text)) files.push({ path: file, text });
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The exceptions file as text: one entry a line, keys sorted, so that a change is a one-line diff. */
export function formatExceptions(exceptions) {
  const sorted = (entries) =>
    Object.fromEntries(Object.entries(entries ?? {}).sort(([a], [b]) => (a < b ? -1 : 1)));
  return `${JSON.stringify({ ...exceptions, files: sorted(exceptions.files), functions: sorted(exceptions.functions) }, null, 2)}\n`;
}

function readExceptions(root) {
  const file = path.join(root, EXCEPTIONS_FILE);
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : { files: {}, functions: {} };
}

function report(over) {
  const rows = (entries) =>
    Object.entries(entries)
      .sort(([, a], [, b]) => b - a)
      .map(([key, lines]) => `  ${lines} ${key}`);
  const functions = rows(over.functions);
  const files = rows(over.files);
  return [
    `functions over ${LIMITS.functionLines} lines: ${functions.length}`,
    ...functions,
    `files over ${LIMITS.fileLines} lines: ${files.length}`,
    ...files,
  ].join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = execFileSync('git', ['rev-parse', '--show-toplevel'], { encoding: 'utf8' }).trim();
  const over = measure(sourceFiles(root));
  const exceptions = readExceptions(root);
  if (process.argv.includes('--report')) {
    console.log(report(over));
    process.exit(0);
  }
  if (process.argv.includes('--update')) {
    const shrunk = shrinkExceptions(over, exceptions);
    writeFileSync(path.join(root, EXCEPTIONS_FILE), formatExceptions(shrunk));
    console.log(`check-lengths: ${EXCEPTIONS_FILE} written down to what is there now`);
  }
  const problems = compare(
    over,
    process.argv.includes('--update') ? shrinkExceptions(over, exceptions) : exceptions,
  );
  if (problems.length === 0) {
    const listed =
      Object.keys(exceptions.functions ?? {}).length + Object.keys(exceptions.files ?? {}).length;
    console.log(
      `check-lengths: no function over ${LIMITS.functionLines} lines, no file over ${LIMITS.fileLines}, beyond the ${listed} listed exceptions`,
    );
    process.exit(0);
  }
  console.error(`check-lengths: ${problems.length} problem(s) (the exceptions are in ${EXCEPTIONS_FILE}):`);
  for (const problem of problems) console.error(`  ${problem}`);
  process.exit(1);
}
