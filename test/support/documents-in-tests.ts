// The GraphQL documents the test files send, read from their source: every string and template literal that
// works out to a document valid against the schema. A template's parts are worked out when they are constants
// of the file, string exports of the support modules it imports, or selectEverything() of a schema type (with
// .slice); a document with a part known only at run time (an id read from a response, a loop's counter) is not.
// Reading the source, not running the tests, keeps the corpus of test/compiled-operations.test.ts in step with
// the tests without copying their documents.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isObjectType, Kind, parse, validate, type DocumentNode, type GraphQLObjectType } from 'graphql';
import ts from 'typescript';
import { schema } from '../../src/graphql/schema.ts';
import { selectEverything } from './select-everything.ts';

const TEST_DIRECTORY = fileURLToPath(new URL('..', import.meta.url));

export interface TestDocument {
  /** The test file, relative to test/. */
  file: string;
  text: string;
  document: DocumentNode;
}

type Value = string | GraphQLObjectType;

/** Every test file under test/ (test/scale/ too). */
function testFiles(directory = TEST_DIRECTORY): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' || entry.name === 'support' ? [] : testFiles(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/**
 * The string exports, among `wanted`, of the modules a test file imports, by the name it imports them as. Only
 * the modules that hold one are imported.
 */
async function importedStrings(source: ts.SourceFile, file: string, wanted: Set<string>): Promise<Map<string, string>> {
  const strings = new Map<string, string>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const specifier = statement.moduleSpecifier.text;
    const bindings = statement.importClause?.namedBindings;
    // Never another test file: importing one would run its tests here.
    if (!specifier.startsWith('.') || specifier.endsWith('.test.ts') || !bindings || !ts.isNamedImports(bindings)) continue;
    if (!bindings.elements.some((element) => wanted.has(element.name.text))) continue;
    const module = await import(pathToFileURL(path.resolve(path.dirname(file), specifier)).href) as Record<string, unknown>;
    for (const element of bindings.elements) {
      const exported = module[(element.propertyName ?? element.name).text];
      if (typeof exported === 'string' || typeof exported === 'number') strings.set(element.name.text, String(exported));
    }
  }
  return strings;
}

/** Every `const` of the file by name; a name declared more than once (in different scopes) is left out. */
function constantsOf(source: ts.SourceFile): Map<string, ts.Expression> {
  const constants = new Map<string, ts.Expression>();
  const repeated = new Set<string>();
  const visit = (node: ts.Node) => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer && ts.getCombinedNodeFlags(node) & ts.NodeFlags.Const) {
      if (constants.has(node.name.text)) repeated.add(node.name.text);
      constants.set(node.name.text, node.initializer);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  for (const name of repeated) constants.delete(name);
  return constants;
}

/** Works out a literal's text; names neither constant nor imported are added to `unknown`. */
function evaluator(constants: Map<string, ts.Expression>, imported: Map<string, string>, unknown = new Set<string>()) {
  const evaluate = (node: ts.Expression, depth = 0): Value | undefined => {
    if (depth > 10) return undefined;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isNumericLiteral(node)) return node.text;
    if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isSatisfiesExpression(node)) return evaluate(node.expression, depth + 1);
    if (ts.isTemplateExpression(node)) {
      let text = node.head.text;
      for (const span of node.templateSpans) {
        const part = evaluate(span.expression, depth + 1);
        if (typeof part !== 'string') return undefined;
        text += part + span.literal.text;
      }
      return text;
    }
    if (ts.isIdentifier(node)) {
      const constant = constants.get(node.text);
      if (constant) return evaluate(constant, depth + 1);
      if (!imported.has(node.text)) unknown.add(node.text);
      return imported.get(node.text);
    }
    if (ts.isCallExpression(node)) return evaluateCall(node, depth);
    return undefined;
  };
  const integer = (node: ts.Expression | undefined) => {
    if (node && ts.isNumericLiteral(node)) return Number(node.text);
    if (node && ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.MinusToken && ts.isNumericLiteral(node.operand)) return -Number(node.operand.text);
    return undefined;
  };
  const evaluateCall = (node: ts.CallExpression, depth: number): Value | undefined => {
    const [first, second] = node.arguments;
    const callee = node.expression;
    if (ts.isIdentifier(callee) && callee.text === 'selectEverything' && first && node.arguments.length === 1) {
      const type = evaluate(first, depth + 1);
      return typeof type === 'string' || type === undefined ? undefined : selectEverything(type);
    }
    if (!ts.isPropertyAccessExpression(callee)) return undefined;
    // schema.getType('Deployment'), and a string's .slice(start, end).
    if (ts.isIdentifier(callee.expression) && callee.expression.text === 'schema' && callee.name.text === 'getType' && first && ts.isStringLiteral(first)) {
      const type = schema.getType(first.text);
      return isObjectType(type) ? type : undefined;
    }
    if (callee.name.text === 'slice') {
      const text = evaluate(callee.expression, depth + 1);
      const [start, end] = [integer(first), integer(second)];
      if (typeof text === 'string' && start !== undefined) return text.slice(start, end);
    }
    return undefined;
  };
  return evaluate;
}

/** A document of at least one operation, valid against the schema; undefined for any other text. */
function validDocument(text: string): DocumentNode | undefined {
  if (!/[{]/.test(text)) return undefined;
  let document: DocumentNode;
  try {
    document = parse(text);
  } catch {
    return undefined;
  }
  if (!document.definitions.some((definition) => definition.kind === Kind.OPERATION_DEFINITION)) return undefined;
  return validate(schema, document).length === 0 ? document : undefined;
}

/** The valid documents of every test file but those named in `except`, each text once (at its first file). */
export async function documentsInTests(except: string[] = []): Promise<TestDocument[]> {
  const found = new Map<string, TestDocument>();
  for (const file of testFiles().filter((candidate) => !except.includes(path.basename(candidate)))) {
    const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const constants = constantsOf(source);
    // Twice: the first time to learn which imported names the literals need.
    const unknown = new Set<string>();
    literalsOf(source).forEach((literal) => evaluator(constants, new Map(), unknown)(literal));
    const evaluate = evaluator(constants, await importedStrings(source, file, unknown));
    for (const literal of literalsOf(source)) {
      const text = evaluate(literal);
      const document = typeof text === 'string' && !found.has(text) ? validDocument(text) : undefined;
      if (document) found.set(text as string, { file: path.relative(TEST_DIRECTORY, file), text: text as string, document });
    }
  }
  return [...found.values()];
}

/** The string and template literals of a file, outermost only (a template's parts are parts of it). */
function literalsOf(source: ts.SourceFile): ts.Expression[] {
  const literals: ts.Expression[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node)) literals.push(node);
    else ts.forEachChild(node, visit);
  };
  visit(source);
  return literals;
}
