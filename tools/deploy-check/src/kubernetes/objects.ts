/** Just enough of the Kubernetes object shapes for the renderer and the checks; the schemas check the rest. */
export type JsonObject = { [key: string]: unknown };

export interface ObjectMeta extends JsonObject {
  name?: string;
  generateName?: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface K8sObject extends JsonObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
}

export interface Probe extends JsonObject {
  httpGet?: { path?: string; port: number | string };
  tcpSocket?: { port: number | string };
  exec?: { command: string[] };
}

export interface Container extends JsonObject {
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: { name: string; value?: string; valueFrom?: JsonObject }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  resources?: { requests?: Record<string, string | number>; limits?: Record<string, string | number> };
  securityContext?: JsonObject;
}

export interface PodSpec extends JsonObject {
  containers: Container[];
  initContainers?: Container[];
  securityContext?: JsonObject;
  volumes?: JsonObject[];
}

export interface PodTemplate {
  metadata?: ObjectMeta;
  spec: PodSpec;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function asK8sObject(value: unknown, source: string): K8sObject {
  if (
    !isJsonObject(value) ||
    typeof value.apiVersion !== 'string' ||
    typeof value.kind !== 'string' ||
    !isJsonObject(value.metadata)
  ) {
    throw new Error(`${source}: not a Kubernetes object (apiVersion, kind and metadata are required)`);
  }
  return value as K8sObject;
}

/** "Deployment/gateway", for messages. */
export function describe(object: K8sObject): string {
  return `${object.kind}/${object.metadata.name ?? object.metadata.generateName ?? '?'}`;
}

/** The pod template of a workload, whatever its kind; undefined for objects that run no pods. */
export function podTemplateOf(object: K8sObject): PodTemplate | undefined {
  const spec = object.spec as JsonObject | undefined;
  switch (object.kind) {
    case 'Pod':
      return { metadata: object.metadata, spec: object.spec as PodSpec };
    case 'Deployment':
    case 'StatefulSet':
    case 'DaemonSet':
    case 'ReplicaSet':
    case 'Job':
      return spec?.template as PodTemplate;
    case 'CronJob':
      return ((spec?.jobTemplate as JsonObject)?.spec as JsonObject)?.template as PodTemplate;
    default:
      return undefined;
  }
}

export function containersOf(object: K8sObject): Container[] {
  const template = podTemplateOf(object);
  if (!template) return [];
  return [...(template.spec.initContainers ?? []), ...template.spec.containers];
}

/** Whether a plain equality selector (matchLabels, or a Service's selector) selects these labels. */
export function labelsMatch(selector: Record<string, string>, labels: Record<string, string> | undefined): boolean {
  return Object.entries(selector).every(([key, value]) => labels?.[key] === value);
}
