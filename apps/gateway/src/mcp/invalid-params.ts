/** One issue of a schema check: the MCP SDK's (zod) issues, as far as they are read here. */
export interface SchemaIssue {
  code: string;
  path: readonly PropertyKey[];
  message: string;
  expected?: string;
  /** Of an `invalid_union` issue: each alternative's issues. */
  errors?: readonly (readonly SchemaIssue[])[];
}

const EXPECTED: Readonly<Record<string, string>> = {
  object: 'an object',
  record: 'an object',
  array: 'an array',
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean',
};

/**
 * The one-line message of a JSON-RPC -32602 for a request whose params fail the MCP schema, naming
 * the first problem where the request has it: "params.arguments must be an object, not an array",
 * "params.name is required". The SDK's own message is its schema issues as indented JSON.
 */
export function invalidParamsMessage(issue: SchemaIssue, request: unknown): string {
  const path = issue.path.length === 0 ? 'params' : issue.path.map(String).join('.');
  const value = valueAt(request, issue.path);
  if (value === undefined && issue.code === 'invalid_type') return `${path} is required`;
  const expected = expectedOf(issue);
  return expected
    ? `${path} must be ${expected}, not ${kindOf(value)}`
    : `${path} is invalid: ${issue.message.toLowerCase()}`;
}

/** What the issue says the value should have been, when it says so plainly: a type, or one of a few. */
function expectedOf(issue: SchemaIssue): string | undefined {
  if (issue.code === 'invalid_type' && issue.expected !== undefined) return EXPECTED[issue.expected];
  if (issue.code !== 'invalid_union' || !issue.errors) return undefined;
  const alternatives = issue.errors.map((issues) =>
    issues.length === 1 && issues[0].path.length === 0 ? expectedOf(issues[0]) : undefined,
  );
  return alternatives.every((alternative) => alternative !== undefined) ? alternatives.join(' or ') : undefined;
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const kind = typeof value;
  return kind === 'object' ? 'an object' : `a ${kind}`;
}
