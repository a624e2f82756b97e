/**
 * Finds every expression that becomes an error or notice code in a TypeScript program and checks
 * it against the code tables. The types already reject a misspelt literal; this catches what the
 * types let through: a cast (`"x" as ErrorCode`, `value as NoticeCode`) and a code that is a wide
 * `string` where a closed union was meant.
 *
 * Code slots: the `code` parameter (or the `code` property of an object argument) of a constructor
 * of an `AdaptorError` subclass, including `super(...)`; the `code` of an object literal with
 * `type: "notice"`; the `code` of an object literal typed as `RunFailure`.
 */
import ts from "typescript";

export interface CodeFinding {
  file: string;
  line: number;
  table: "error" | "notice";
  /** The offending code, or a description of the type that is not a closed union. */
  code: string;
}

export interface CodeTables {
  errors: ReadonlySet<string>;
  notices: ReadonlySet<string>;
}

/** Expressions that do not change a value: parentheses, casts, `satisfies`, `!`. */
function unwrap(expression: ts.Expression): ts.Expression {
  let current = expression;
  while (
    ts.isParenthesizedExpression(current) ||
    ts.isAsExpression(current) ||
    ts.isSatisfiesExpression(current) ||
    ts.isNonNullExpression(current) ||
    ts.isTypeAssertionExpression(current)
  ) {
    current = current.expression;
  }
  return current;
}

function derivesFromAdaptorError(checker: ts.TypeChecker, type: ts.Type): boolean {
  const seen = new Set<ts.Type>();
  const pending: ts.Type[] = [type];
  while (pending.length > 0) {
    const next = pending.pop()!;
    if (seen.has(next)) continue;
    seen.add(next);
    if (next.getSymbol()?.getName() === "AdaptorError") return true;
    if (next.isClassOrInterface()) pending.push(...(checker.getBaseTypes(next) ?? []));
  }
  return false;
}

/** The class whose constructor a `new` or `super(...)` calls, as a type. */
function constructedClass(checker: ts.TypeChecker, node: ts.NewExpression | ts.CallExpression): ts.Type | undefined {
  const declaration = checker.getResolvedSignature(node)?.getDeclaration();
  if (declaration === undefined) return undefined;
  const owner = ts.isConstructorDeclaration(declaration) ? declaration.parent : ts.isClassLike(declaration) ? declaration : undefined;
  return owner === undefined ? undefined : checker.getTypeAtLocation(owner);
}

function propertyValue(object: ts.ObjectLiteralExpression, name: string): ts.Expression | undefined {
  for (const property of object.properties) {
    if (property.name === undefined || !ts.isIdentifier(property.name) || property.name.text !== name) continue;
    if (ts.isPropertyAssignment(property)) return property.initializer;
    if (ts.isShorthandPropertyAssignment(property)) return property.name;
  }
  return undefined;
}

/** Every code slot in one file, with the table it must come from. */
function codeSlots(checker: ts.TypeChecker, file: ts.SourceFile): { expression: ts.Expression; table: "error" | "notice" }[] {
  const slots: { expression: ts.Expression; table: "error" | "notice" }[] = [];
  const visit = (node: ts.Node): void => {
    const isSuper = ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.SuperKeyword;
    if ((ts.isNewExpression(node) || isSuper) && node.arguments !== undefined) {
      const constructed = constructedClass(checker, node as ts.NewExpression | ts.CallExpression);
      const declaration = checker.getResolvedSignature(node as ts.CallLikeExpression)?.getDeclaration();
      if (constructed !== undefined && declaration !== undefined && derivesFromAdaptorError(checker, constructed)) {
        declaration.parameters.forEach((parameter, index) => {
          const argument = (node as ts.NewExpression).arguments?.[index];
          if (argument === undefined || !ts.isIdentifier(parameter.name)) return;
          if (parameter.name.text === "code") slots.push({ expression: argument, table: "error" });
          const inner = unwrap(argument);
          if (ts.isObjectLiteralExpression(inner)) {
            const code = propertyValue(inner, "code");
            if (code !== undefined) slots.push({ expression: code, table: "error" });
          }
        });
      }
    }
    if (ts.isObjectLiteralExpression(node)) {
      const type = propertyValue(node, "type");
      const code = propertyValue(node, "code");
      if (code !== undefined && type !== undefined && ts.isStringLiteralLike(unwrap(type)) && (unwrap(type) as ts.StringLiteralLike).text === "notice") {
        slots.push({ expression: code, table: "notice" });
      } else if (code !== undefined && checker.getContextualType(node)?.getSymbol()?.getName() === "RunFailure") {
        slots.push({ expression: code, table: "error" });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return slots;
}

/** The code values an expression may hold, or undefined when its type is not a closed set of strings. */
function possibleCodes(checker: ts.TypeChecker, expression: ts.Expression): string[] | undefined {
  const inner = unwrap(expression);
  if (ts.isStringLiteralLike(inner)) return [inner.text];
  if (ts.isConditionalExpression(inner)) {
    const whenTrue = possibleCodes(checker, inner.whenTrue);
    const whenFalse = possibleCodes(checker, inner.whenFalse);
    return whenTrue === undefined || whenFalse === undefined ? undefined : [...whenTrue, ...whenFalse];
  }
  const type = checker.getTypeAtLocation(inner);
  const members = type.isUnion() ? type.types : [type];
  const values: string[] = [];
  for (const member of members) {
    if (member.flags & ts.TypeFlags.Undefined) continue; // an absent optional code takes the default
    if (!member.isStringLiteral()) return undefined;
    values.push(member.value);
  }
  return values;
}

/** Checks every code slot of the program's files under `root` (a path prefix); `slots` counts them. */
export function scanCodes(program: ts.Program, root: string, tables: CodeTables): { findings: CodeFinding[]; slots: number } {
  const checker = program.getTypeChecker();
  const findings: CodeFinding[] = [];
  let slots = 0;
  for (const file of program.getSourceFiles()) {
    if (!file.fileName.startsWith(root) || file.isDeclarationFile) continue;
    for (const { expression, table } of codeSlots(checker, file)) {
      slots += 1;
      const line = file.getLineAndCharacterOfPosition(expression.getStart(file)).line + 1;
      const known = table === "error" ? tables.errors : tables.notices;
      const values = possibleCodes(checker, expression);
      if (values === undefined) {
        findings.push({ file: file.fileName, line, table, code: `<not a closed code type: ${checker.typeToString(checker.getTypeAtLocation(unwrap(expression)))}>` });
        continue;
      }
      for (const value of values) if (!known.has(value)) findings.push({ file: file.fileName, line, table, code: value });
    }
  }
  return { findings, slots };
}
