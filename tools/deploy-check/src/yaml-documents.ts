import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';

/**
 * Every document of a YAML file, as plain data. Merge keys (`<<: *anchor`) are resolved, as Compose
 * does; duplicate keys and syntax errors throw, naming the file.
 */
export function parseYamlDocuments(text: string, source: string): unknown[] {
  const documents = parseAllDocuments(text, { merge: true, uniqueKeys: true, prettyErrors: true });
  const values: unknown[] = [];
  for (const document of documents) {
    const problems = [...document.errors, ...document.warnings];
    if (problems.length > 0) throw new Error(`${source}: ${problems.map((p) => p.message).join('; ')}`);
    const value: unknown = document.toJS({ maxAliasCount: 100 });
    if (value !== null && value !== undefined) values.push(value);
  }
  return values;
}

export function readYamlDocuments(path: string): unknown[] {
  return parseYamlDocuments(readFileSync(path, 'utf8'), path);
}

export function readYamlDocument(path: string): unknown {
  const documents = readYamlDocuments(path);
  if (documents.length !== 1) throw new Error(`${path}: expected one YAML document, found ${documents.length}`);
  return documents[0];
}
