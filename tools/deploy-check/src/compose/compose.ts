import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv, type ErrorObject } from 'ajv';
import { repoPath } from '../repo.js';
import { isJsonObject, type JsonObject } from '../kubernetes/objects.js';
import { readYamlDocument } from '../yaml-documents.js';

/** The Compose Specification's schema, vendored (schemas/README.md says from where). */
const COMPOSE_SCHEMA_PATH = repoPath('tools/deploy-check/schemas/compose-spec.json');

export interface ComposeService extends JsonObject {
  image?: string;
  build?: string | JsonObject;
  command?: string | string[];
  environment?: Record<string, string | number | boolean | null> | string[];
  ports?: (string | number | JsonObject)[];
  healthcheck?: JsonObject;
  depends_on?: string[] | Record<string, { condition: string }>;
}

export interface ComposeFile extends JsonObject {
  services: Record<string, ComposeService>;
}

export function loadComposeFile(path: string): ComposeFile {
  const value = readYamlDocument(path);
  if (!isJsonObject(value) || !isJsonObject(value.services)) throw new Error(`${path}: no services`);
  return value as ComposeFile;
}

function createValidator() {
  const ajv = new Ajv({ allErrors: true, strictTypes: false, strictTuples: false });
  // The schema names draft-07 by its https address; Ajv knows the meta-schema by the http one.
  const draft07 = createRequire(import.meta.url)('ajv/dist/refs/json-schema-draft-07.json') as JsonObject;
  ajv.addMetaSchema(draft07, 'https://json-schema.org/draft-07/schema');
  return ajv.compile(JSON.parse(readFileSync(COMPOSE_SCHEMA_PATH, 'utf8')) as JsonObject);
}

let validator: ReturnType<typeof createValidator> | undefined;

/** Where a Compose file breaks the Compose Specification, empty when it follows it. */
export function composeSchemaProblems(document: unknown): string[] {
  validator ??= createValidator();
  if (validator(document)) return [];
  return (validator.errors ?? []).map(
    (error: ErrorObject) =>
      `${error.instancePath || '/'} ${error.message ?? error.keyword} ${JSON.stringify(error.params)}`,
  );
}

/** The service's environment as a map, whichever form the file uses. */
export function environmentOf(service: ComposeService): Record<string, string> {
  const environment = service.environment ?? {};
  if (Array.isArray(environment)) {
    return Object.fromEntries(environment.map((entry) => [entry.split('=')[0], entry.slice(entry.indexOf('=') + 1)]));
  }
  return Object.fromEntries(
    Object.entries(environment).map(([key, value]) => [key, value === null ? '' : String(value)]),
  );
}

export interface PublishedPort {
  hostIp?: string;
  published?: string;
  target: string;
}

/** A service's published ports in long form; short forms such as "127.0.0.1:5432:5432" and "3000:3000" included. */
export function publishedPorts(service: ComposeService): PublishedPort[] {
  return (service.ports ?? []).map((port) => {
    if (isJsonObject(port)) {
      return {
        hostIp: port.host_ip as string | undefined,
        published: port.published === undefined ? undefined : String(port.published),
        target: String(port.target),
      };
    }
    const text = String(port).replace(/\/(tcp|udp)$/, '');
    const ipv6 = /^\[([^\]]+)\]:(.*)$/.exec(text);
    const [hostIp, remainder] = ipv6 ? [ipv6[1], ipv6[2]] : [undefined, text];
    const parts = remainder.split(':');
    if (parts.length === 3) return { hostIp: parts[0], published: parts[1], target: parts[2] };
    if (parts.length === 2) return { hostIp, published: parts[0], target: parts[1] };
    return { hostIp, target: parts[0] };
  });
}
