/*
 * The MCP SDK is loaded by the first /mcp request, not at start-up (it costs ~9 MB of heap and ~20 MB
 * of RSS). This walks the static imports the gateway's entry point loads, through the workspace
 * libraries, and fails if one of them reaches the SDK: a value import of it anywhere at start-up
 * would undo the lazy load without any other test noticing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const GATEWAY_SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../src');
const LIBS = resolve(GATEWAY_SRC, '../../../libs');

/** Specifiers of the imports and re-exports that load a module when `file` loads: not types, not `import()`. */
function staticValueImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const specifiers: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((element) => element.isTypeOnly)));
      if (!typeOnly) specifiers.push((statement.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && !statement.isTypeOnly) {
      specifiers.push((statement.moduleSpecifier as ts.StringLiteral).text);
    }
  }
  return specifiers;
}

/** The source file a specifier names inside the workspace, or undefined for a package from node_modules. */
function workspaceFile(specifier: string, from: string): string | undefined {
  if (specifier.startsWith('.')) return resolve(dirname(from), specifier.replace(/\.js$/, '.ts'));
  const lib = /^@appcat\/([a-z-]+)$/.exec(specifier)?.[1];
  const index = lib && join(LIBS, lib, 'src/index.ts');
  return index && existsSync(index) ? index : undefined;
}

/** Every workspace file and package loaded at start-up from `entry`, following static imports. */
function startupGraph(entry: string): { files: Set<string>; packages: Map<string, string> } {
  const files = new Set<string>();
  const packages = new Map<string, string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const specifier of staticValueImports(file)) {
      const next = workspaceFile(specifier, file);
      if (next) pending.push(next);
      else if (!specifier.startsWith('node:')) packages.set(specifier, file);
    }
  }
  return { files, packages };
}

describe('gateway start-up imports', () => {
  // main.ts imports the app itself at boot (after tracing starts, libs/ops runService): that import is
  // start-up too, unlike the MCP server's on the first request.
  const boot = startupGraph(join(GATEWAY_SRC, 'main.ts'));
  const app = startupGraph(join(GATEWAY_SRC, 'gateway-app.ts'));
  const files = new Set([...boot.files, ...app.files]);
  const packages = new Map([...boot.packages, ...app.packages]);

  it("take the app's import in main.ts as start-up", () => {
    expect(readFileSync(join(GATEWAY_SRC, 'main.ts'), 'utf8')).toContain("import('./gateway-app.js')");
  });

  it('reach the MCP endpoint and tool calls, but not the module that holds the MCP server', () => {
    expect(files).toContain(join(GATEWAY_SRC, 'mcp/mcp-endpoint.registrar.ts'));
    expect(files).toContain(join(GATEWAY_SRC, 'mcp/mcp-tool-calls.service.ts'));
    expect(files).not.toContain(join(GATEWAY_SRC, 'mcp/mcp-server.ts'));
    expect(readFileSync(join(GATEWAY_SRC, 'mcp/mcp-endpoint.registrar.ts'), 'utf8')).toContain(
      "import('./mcp-server.js')",
    );
  });

  it('load nothing of the MCP SDK', () => {
    const sdk = [...packages].filter(([specifier]) => specifier.startsWith('@modelcontextprotocol/'));
    expect(sdk.map(([specifier, file]) => `${specifier} from ${file}`)).toEqual([]);
  });

  it('load the MCP SDK from the MCP server module, so the walk does see SDK imports', () => {
    expect(staticValueImports(join(GATEWAY_SRC, 'mcp/mcp-server.ts'))).toContain(
      '@modelcontextprotocol/sdk/server/index.js',
    );
  });
});
