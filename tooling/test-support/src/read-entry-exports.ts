import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The names an entry file exports, split by whether they exist at run time. */
export interface EntryExports {
  /** Names with a value at run time (functions, classes, constants), sorted. */
  runtime: string[];
  /** Names that exist only for the type checker (interfaces, type aliases, `type` re-exports), sorted. */
  types: string[];
}

/**
 * Reads the names an entry's TypeScript source exports, types included, from its syntax alone (the
 * TypeScript parser, no program): a name re-exported with `type` (or from `export type { ... }`), an
 * `export interface` and an `export type` alias are types; every other exported name is runtime.
 * Reading the syntax is enough because the packages compile with `isolatedModules`, under which
 * re-exporting a type without `type` does not type-check, and it keeps the check to one file (a
 * program over core's entry would load zod's and openai's declarations for each suite).
 *
 * Contract: throws naming the line for `export *` and `export * as name`, whose names the file does
 * not spell out (an entry lists its exports by name), and for an exported declaration it cannot
 * classify.
 *
 * @example
 * readEntryExports(new URL('./index.ts', import.meta.url)); // { runtime: ['createWebTools'], types: ['WebToolsContext'] }
 */
export function readEntryExports(source: URL | string): EntryExports {
  const path = typeof source === 'string' ? source : fileURLToPath(source);
  const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const runtime: string[] = [];
  const types: string[] = [];
  const where = (node: ts.Node) => `${path}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  for (const statement of file.statements) {
    if (ts.isExportDeclaration(statement)) {
      const clause = statement.exportClause;
      if (clause === undefined || !ts.isNamedExports(clause)) {
        throw new Error(`${where(statement)}: name each export instead of \`export *\``);
      }
      for (const element of clause.elements) {
        (statement.isTypeOnly || element.isTypeOnly ? types : runtime).push(element.name.text);
      }
    } else if (ts.isExportAssignment(statement)) {
      runtime.push('default');
    } else if (hasExportModifier(statement)) {
      const named = exportedDeclaration(statement);
      if (named === undefined) throw new Error(`${where(statement)}: an export this check cannot classify`);
      (named.isType ? types : runtime).push(...named.names);
    }
  }
  return { runtime: runtime.sort(), types: types.sort() };
}

function hasExportModifier(statement: ts.Statement): boolean {
  return (
    ts.canHaveModifiers(statement) &&
    (ts.getModifiers(statement) ?? []).some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)
  );
}

function exportedDeclaration(statement: ts.Statement): { names: string[]; isType: boolean } | undefined {
  const isDefault = (ts.getModifiers(statement as ts.HasModifiers) ?? []).some(
    (modifier) => modifier.kind === ts.SyntaxKind.DefaultKeyword,
  );
  if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) {
    return { names: [statement.name.text], isType: true };
  }
  if (ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) {
    const name = isDefault ? 'default' : statement.name?.text;
    return name === undefined ? undefined : { names: [name], isType: false };
  }
  if (ts.isEnumDeclaration(statement)) {
    const isConst = (ts.getModifiers(statement) ?? []).some(
      (modifier) => modifier.kind === ts.SyntaxKind.ConstKeyword,
    );
    return { names: [statement.name.text], isType: isConst };
  }
  if (ts.isVariableStatement(statement)) {
    const names = statement.declarationList.declarations.map((declaration) =>
      ts.isIdentifier(declaration.name) ? declaration.name.text : undefined,
    );
    return names.every((name) => name !== undefined)
      ? { names: names as string[], isType: false }
      : undefined;
  }
  return undefined;
}
