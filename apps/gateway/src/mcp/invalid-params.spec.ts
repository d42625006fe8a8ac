/*
 * The one-line -32602 messages, from the MCP SDK's own schema issues for requests it refuses.
 */
import {
  CallToolRequestSchema,
  InitializeRequestSchema,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { invalidParamsMessage, type SchemaIssue } from './invalid-params.js';

function messageFor(
  schema: { safeParse(value: unknown): { error?: { issues: readonly SchemaIssue[] } } },
  request: Record<string, unknown>,
): string {
  const issue = schema.safeParse(request).error?.issues[0];
  expect(issue).toBeDefined();
  return invalidParamsMessage(issue!, request);
}

describe('invalidParamsMessage', () => {
  it.each([
    [{ name: 'apps_get', arguments: [] }, 'params.arguments must be an object, not an array'],
    [{ name: 'apps_get', arguments: null }, 'params.arguments must be an object, not null'],
    [{ name: 'apps_get', arguments: 7 }, 'params.arguments must be an object, not a number'],
    [{ arguments: {} }, 'params.name is required'],
    [{ name: true }, 'params.name must be a string, not a boolean'],
    [{ name: 'apps_get', _meta: 'x' }, 'params._meta must be an object, not a string'],
    [
      { name: 'apps_get', _meta: { progressToken: {} } },
      'params._meta.progressToken must be a string or a number, not an object',
    ],
    [undefined, 'params is required'],
    ['apps_get', 'params must be an object, not a string'],
  ])('tools/call params %j → %s', (params, message) => {
    expect(
      messageFor(CallToolRequestSchema, { method: 'tools/call', ...(params === undefined ? {} : { params }) }),
    ).toBe(message);
  });

  it('names the first problem of other methods too, on one line', () => {
    expect(messageFor(ListToolsRequestSchema, { method: 'tools/list', params: { cursor: 5 } })).toBe(
      'params.cursor must be a string, not a number',
    );
    const initialize = messageFor(InitializeRequestSchema, { method: 'initialize', params: {} });
    expect(initialize).toBe('params.protocolVersion is required');
  });

  it('falls back to the issue itself, lower-cased and on one line, when it names no type', () => {
    const message = invalidParamsMessage(
      { code: 'too_big', path: ['params', 'arguments'], message: 'Too big: expected at most 3 keys' },
      {},
    );
    expect(message).toBe('params.arguments is invalid: too big: expected at most 3 keys');
  });
});
