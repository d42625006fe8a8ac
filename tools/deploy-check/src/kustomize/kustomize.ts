import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { formatImage, parseImage } from '../images.js';
import {
  asK8sObject,
  containersOf,
  describe,
  isJsonObject,
  type K8sObject,
  podTemplateOf,
} from '../kubernetes/objects.js';
import { parseYamlDocuments, readYamlDocument, readYamlDocuments } from '../yaml-documents.js';
import { patchObject } from './strategic-merge.js';

/**
 * A small kustomize: the subset of `kustomize build` that k8s/ uses, in kustomize's order (resources,
 * then components — each one's resources, then its patches over everything so far —, then patches,
 * then namespace, labels and images). Anything else in a kustomization is refused, so
 * the checks never pass over a feature this renderer would silently ignore. No pure-JavaScript
 * kustomize exists on npm; `kubectl kustomize` must agree with this one (docs/deployment.md).
 */
const SUPPORTED_FIELDS = new Set([
  'apiVersion',
  'kind',
  'resources',
  'components',
  'configMapGenerator',
  'namespace',
  'labels',
  'images',
  'patches',
]);
/** What a Component (kind: Component) may hold. */
const COMPONENT_FIELDS = new Set(['apiVersion', 'kind', 'resources', 'patches']);

interface LabelsEntry {
  pairs: Record<string, string>;
  includeSelectors?: boolean;
  includeTemplates?: boolean;
}

interface ImageEntry {
  name: string;
  newName?: string;
  newTag?: string;
  digest?: string;
}

interface PatchEntry {
  path?: string;
  patch?: string;
  target?: { kind?: string; name?: string };
}

/** A ConfigMap made from files, each a key named by its file name; only without kustomize's name hash. */
interface ConfigMapGeneratorEntry {
  name: string;
  files?: string[];
  options?: { disableNameSuffixHash?: boolean; labels?: Record<string, string> };
}

interface Kustomization {
  resources?: string[];
  components?: string[];
  configMapGenerator?: ConfigMapGeneratorEntry[];
  namespace?: string;
  labels?: LabelsEntry[];
  images?: ImageEntry[];
  patches?: PatchEntry[];
}

/** Kinds without a namespace (of those a kustomization here could hold). */
const CLUSTER_SCOPED = new Set([
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'PersistentVolume',
  'StorageClass',
  'PriorityClass',
  'CustomResourceDefinition',
]);

function readKustomization(dir: string, kind: 'Kustomization' | 'Component' = 'Kustomization'): Kustomization {
  const file = join(dir, 'kustomization.yaml');
  if (!existsSync(file)) throw new Error(`${dir}: no kustomization.yaml`);
  const value = readYamlDocument(file);
  if (!isJsonObject(value)) throw new Error(`${file}: not a mapping`);
  const supported = kind === 'Component' ? COMPONENT_FIELDS : SUPPORTED_FIELDS;
  for (const field of Object.keys(value)) {
    if (!supported.has(field)) throw new Error(`${file}: "${field}" is not supported by this renderer`);
  }
  if (value.kind !== kind) throw new Error(`${file}: kind must be ${kind}`);
  return value as Kustomization;
}

function objectId(object: K8sObject): string {
  return `${object.apiVersion}/${object.kind}/${object.metadata.namespace ?? ''}/${object.metadata.name ?? object.metadata.generateName}`;
}

function loadResource(dir: string, entry: string): K8sObject[] {
  if (/^[a-z]+:\/\//i.test(entry) || entry.startsWith('github.com/'))
    throw new Error(`${dir}: remote resource ${entry} is not supported`);
  const path = resolve(dir, entry);
  if (!existsSync(path)) throw new Error(`${dir}: resource ${entry} does not exist`);
  if (statSync(path).isDirectory()) return renderKustomization(path);
  return readYamlDocuments(path).map((document) => asK8sObject(document, path));
}

function generateConfigMaps(dir: string, entries: ConfigMapGeneratorEntry[]): K8sObject[] {
  return entries.map((entry) => {
    const { files = [], options = {}, ...rest } = entry;
    const unsupported = Object.keys(rest).filter((field) => field !== 'name');
    if (unsupported.length > 0)
      throw new Error(`${dir}: configMapGenerator ${unsupported.join(', ')} is not supported`);
    // The hash suffix would rename the ConfigMap on every change; this renderer does not compute it.
    if (options.disableNameSuffixHash !== true)
      throw new Error(`${dir}: configMapGenerator ${entry.name} needs options.disableNameSuffixHash: true`);
    const data = Object.fromEntries(
      files.map((file) => {
        if (file.includes('=')) throw new Error(`${dir}: configMapGenerator key=path files are not supported`);
        return [file.split('/').pop()!, readFileSync(resolve(dir, file), 'utf8')];
      }),
    );
    return {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: entry.name, ...(options.labels ? { labels: { ...options.labels } } : {}) },
      data,
    };
  });
}

function applyPatches(objects: K8sObject[], dir: string, patches: PatchEntry[]): K8sObject[] {
  let result = objects;
  for (const entry of patches) {
    const source = entry.path ? join(dir, entry.path) : `${dir} (inline patch)`;
    const text = entry.path ? readFileSync(join(dir, entry.path), 'utf8') : entry.patch;
    if (text === undefined) throw new Error(`${dir}: a patch needs a path or an inline patch`);
    const documents = parseYamlDocuments(text, source);
    if (documents.some((document) => Array.isArray(document)))
      throw new Error(`${source}: JSON 6902 patches are not supported`);
    // kustomize before v5.2.1 (kubectl before 1.29) refuses several patches in one entry.
    if (documents.length !== 1)
      throw new Error(`${source}: a patch file must hold exactly one patch, found ${documents.length}`);
    for (const document of documents) {
      const patch = asK8sObject(document, source);
      const matches = (object: K8sObject) =>
        entry.target
          ? (entry.target.kind === undefined || entry.target.kind === object.kind) &&
            (entry.target.name === undefined || entry.target.name === object.metadata.name)
          : object.kind === patch.kind &&
            object.apiVersion === patch.apiVersion &&
            object.metadata.name === patch.metadata.name;
      const count = result.filter(matches).length;
      if (count === 0) throw new Error(`${source}: ${describe(patch)} matches no resource`);
      result = result.map((object) => {
        if (!matches(object)) return object;
        const { apiVersion: _apiVersion, kind: _kind, metadata, ...body } = patch;
        const { name: _name, namespace: _namespace, ...metadataPatch } = metadata;
        return patchObject(object, {
          ...body,
          ...(Object.keys(metadataPatch).length > 0 ? { metadata: metadataPatch } : {}),
        });
      });
    }
  }
  return result;
}

function setNamespace(objects: K8sObject[], namespace: string): K8sObject[] {
  return objects.map((object) =>
    CLUSTER_SCOPED.has(object.kind) ? object : { ...object, metadata: { ...object.metadata, namespace } },
  );
}

function addLabels(objects: K8sObject[], entries: LabelsEntry[], file: string): K8sObject[] {
  return objects.map((original) => {
    const object = structuredClone(original);
    for (const entry of entries) {
      if (entry.includeSelectors)
        throw new Error(
          `${file}: labels with includeSelectors are not supported (selectors are immutable once applied)`,
        );
      object.metadata.labels = { ...object.metadata.labels, ...entry.pairs };
      const template = entry.includeTemplates ? podTemplateOf(object) : undefined;
      if (template && object.kind !== 'Pod')
        template.metadata = { ...template.metadata, labels: { ...template.metadata?.labels, ...entry.pairs } };
    }
    return object;
  });
}

function setImages(objects: K8sObject[], images: ImageEntry[]): K8sObject[] {
  return objects.map((original) => {
    const object = structuredClone(original);
    for (const container of containersOf(object)) {
      if (!container.image) continue;
      const current = parseImage(container.image);
      const rule = images.find((image) => image.name === current.name);
      if (!rule) continue;
      container.image = formatImage({
        name: rule.newName ?? current.name,
        ...(rule.newTag !== undefined ? { tag: rule.newTag } : current.tag !== undefined ? { tag: current.tag } : {}),
        ...(rule.digest !== undefined ? { digest: rule.digest } : {}),
      });
    }
    return object;
  });
}

/** `kustomize build <dir>`, for the supported subset. */
export function renderKustomization(dir: string): K8sObject[] {
  const kustomization = readKustomization(dir);
  const file = join(dir, 'kustomization.yaml');
  let objects = [
    ...(kustomization.resources ?? []).flatMap((entry) => loadResource(dir, entry)),
    ...generateConfigMaps(dir, kustomization.configMapGenerator ?? []),
  ];
  for (const entry of kustomization.components ?? []) {
    const componentDir = resolve(dir, entry);
    const component = readKustomization(componentDir, 'Component');
    objects.push(...(component.resources ?? []).flatMap((resource) => loadResource(componentDir, resource)));
    objects = applyPatches(objects, componentDir, component.patches ?? []);
  }
  const seen = new Set<string>();
  for (const object of objects) {
    const id = objectId(object);
    if (seen.has(id)) throw new Error(`${file}: ${describe(object)} is defined twice`);
    seen.add(id);
  }
  objects = applyPatches(objects, dir, kustomization.patches ?? []);
  if (kustomization.namespace) objects = setNamespace(objects, kustomization.namespace);
  if (kustomization.labels) objects = addLabels(objects, kustomization.labels, file);
  if (kustomization.images) objects = setImages(objects, kustomization.images);
  return objects;
}
