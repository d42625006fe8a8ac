import ts from 'typescript';
import { repoPath } from '../repo.js';
import { describe, type K8sObject } from './objects.js';

/**
 * Unknown or misspelt fields (`readinesProbe`, `securityContext.runAsNonroot`), which the API server
 * would drop or reject and the compiled JSON schemas let through. Each object becomes an object
 * literal typed with the kubernetes-models interface of its kind, and TypeScript's excess-property
 * check reports every field the Kubernetes API does not define, at any depth.
 */
const VIRTUAL_FILE = repoPath('tools/deploy-check/src/kubernetes/__manifests__.ts');

const COMPILER_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  types: [],
};

interface Span {
  object: K8sObject;
  firstLine: number;
  lastLine: number;
}

function buildSource(objects: K8sObject[]): { source: string; spans: Span[] } {
  const aliases = new Map<string, string>();
  for (const object of objects) {
    const module = `kubernetes-models/${object.apiVersion}/${object.kind}`;
    if (!aliases.has(module)) aliases.set(module, `T${aliases.size}`);
  }
  const lines = [...aliases].map(
    ([module, alias]) => `import type { I${module.split('/').at(-1)} as ${alias} } from '${module}';`,
  );
  const spans: Span[] = [];
  objects.forEach((object, index) => {
    const alias = aliases.get(`kubernetes-models/${object.apiVersion}/${object.kind}`);
    const literal = JSON.stringify(object, null, 2).split('\n');
    const firstLine = lines.length;
    lines.push(`export const object${index}: ${alias} = ${literal[0]}`, ...literal.slice(1, -1), `${literal.at(-1)};`);
    spans.push({ object, firstLine, lastLine: lines.length - 1 });
  });
  return { source: lines.join('\n') + '\n', spans };
}

/** One message per unknown or mistyped field, empty when every object uses only API fields. */
export function unknownFieldProblems(objects: K8sObject[]): string[] {
  if (objects.length === 0) return [];
  const { source, spans } = buildSource(objects);
  const host = ts.createCompilerHost(COMPILER_OPTIONS);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, ...rest) =>
    fileName === VIRTUAL_FILE
      ? ts.createSourceFile(fileName, source, languageVersion, true)
      : getSourceFile(fileName, languageVersion, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (fileName) => fileName === VIRTUAL_FILE || fileExists(fileName);
  const readFile = host.readFile.bind(host);
  host.readFile = (fileName) => (fileName === VIRTUAL_FILE ? source : readFile(fileName));

  const program = ts.createProgram([VIRTUAL_FILE], COMPILER_OPTIONS, host);
  const diagnostics = [
    ...program.getOptionsDiagnostics(),
    ...ts.getPreEmitDiagnostics(program, program.getSourceFile(VIRTUAL_FILE)),
  ];
  return diagnostics.map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
    if (!diagnostic.file || diagnostic.start === undefined) return message;
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    const span = spans.find((candidate) => line >= candidate.firstLine && line <= candidate.lastLine);
    const field = diagnostic.file.text.split('\n')[line]?.trim();
    return span ? `${describe(span.object)}: ${message} (at ${field})` : message;
  });
}
