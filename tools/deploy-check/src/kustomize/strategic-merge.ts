import { isJsonObject, type JsonObject } from '../kubernetes/objects.js';

/**
 * The part of Kubernetes' strategic merge patch that the overlays use: maps merge key by key, `null`
 * deletes a key, lists of named things merge element by element on their merge key (as the API's
 * patchMergeKey says), and any other list is replaced whole (envFrom, command, args…). Directives
 * such as `$patch` are refused rather than half-supported.
 */
const MERGE_KEYS: Record<string, string> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  env: 'name',
  volumes: 'name',
  volumeMounts: 'mountPath',
  imagePullSecrets: 'name',
  hostAliases: 'ip',
};

function mergeKeyFor(field: string, inService: boolean): string | undefined {
  if (field === 'ports') return inService ? 'port' : 'containerPort';
  return MERGE_KEYS[field];
}

export function strategicMerge(target: unknown, patch: unknown, path = '', inService = false): unknown {
  if (!isJsonObject(patch) || !isJsonObject(target)) return structuredClone(patch);
  const merged: JsonObject = { ...target };
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$')) throw new Error(`strategic merge directive ${key} at ${path || '/'} is not supported`);
    if (value === null) {
      delete merged[key];
      continue;
    }
    const current = merged[key];
    const childPath = `${path}/${key}`;
    if (Array.isArray(value) && Array.isArray(current)) {
      const mergeKey = mergeKeyFor(key, inService);
      merged[key] = mergeKey ? mergeList(current, value, mergeKey, childPath) : structuredClone(value);
    } else if (isJsonObject(value) && isJsonObject(current)) {
      merged[key] = strategicMerge(current, value, childPath, inService);
    } else {
      merged[key] = structuredClone(value);
    }
  }
  return merged;
}

function mergeList(current: unknown[], patch: unknown[], mergeKey: string, path: string): unknown[] {
  const result = current.map((item) => structuredClone(item));
  for (const item of patch) {
    if (!isJsonObject(item) || item[mergeKey] === undefined) {
      throw new Error(`${path}: every patched element needs its merge key "${mergeKey}"`);
    }
    const index = result.findIndex((existing) => isJsonObject(existing) && existing[mergeKey] === item[mergeKey]);
    if (index === -1) result.push(structuredClone(item));
    else result[index] = strategicMerge(result[index], item, `${path}[${mergeKey}=${String(item[mergeKey])}]`);
  }
  return result;
}

/** Patches one object. A Service's ports merge on `port`, a container's on `containerPort`. */
export function patchObject<T extends JsonObject>(target: T, patch: JsonObject): T {
  return strategicMerge(target, patch, '', target.kind === 'Service') as T;
}
