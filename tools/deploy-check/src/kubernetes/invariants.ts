import { pinProblem } from '../images.js';
import {
  type Container,
  containersOf,
  describe,
  isJsonObject,
  type JsonObject,
  type K8sObject,
  labelsMatch,
  podTemplateOf,
  type Probe,
} from './objects.js';

/**
 * The deployment rules as functions from rendered objects to problems (empty when the rule holds),
 * so each can be shown to fail on a bad manifest (invariants.spec.ts) and to hold on the real ones.
 */

const LONG_RUNNING = new Set(['Deployment', 'StatefulSet', 'DaemonSet']);
const NAME_LABEL = 'app.kubernetes.io/name';

function workloads(objects: K8sObject[]): K8sObject[] {
  return objects.filter((object) => podTemplateOf(object) !== undefined);
}

/** Every long-running container has both probes; every container has CPU and memory requests and limits. */
export function probeAndResourceProblems(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  for (const object of workloads(objects)) {
    for (const container of containersOf(object)) {
      const where = `${describe(object)} container ${container.name}`;
      if (LONG_RUNNING.has(object.kind)) {
        if (!container.readinessProbe) problems.push(`${where}: no readinessProbe`);
        if (!container.livenessProbe) problems.push(`${where}: no livenessProbe`);
      }
      for (const kind of ['requests', 'limits'] as const) {
        for (const resource of ['cpu', 'memory']) {
          if (container.resources?.[kind]?.[resource] === undefined) problems.push(`${where}: no ${resource} ${kind}`);
        }
      }
    }
  }
  return problems;
}

/**
 * Pod Security "restricted" and then some: non-root, a seccomp profile, no privilege escalation, every
 * capability dropped, a read-only root filesystem, no host namespaces or ports.
 */
export function securityProblems(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  for (const object of workloads(objects)) {
    const spec = podTemplateOf(object)!.spec;
    const podSecurity = spec.securityContext ?? {};
    for (const field of ['hostNetwork', 'hostPID', 'hostIPC']) {
      if (spec[field] === true) problems.push(`${describe(object)}: ${field}`);
    }
    for (const container of containersOf(object)) {
      const where = `${describe(object)} container ${container.name}`;
      const security = (container.securityContext ?? {}) as JsonObject;
      const runAsNonRoot = security.runAsNonRoot ?? podSecurity.runAsNonRoot;
      const runAsUser = security.runAsUser ?? podSecurity.runAsUser;
      if (runAsNonRoot !== true) problems.push(`${where}: runAsNonRoot is not true`);
      if (runAsUser === 0) problems.push(`${where}: runs as user 0`);
      if (security.readOnlyRootFilesystem !== true) problems.push(`${where}: root filesystem is writable`);
      if (security.allowPrivilegeEscalation !== false) problems.push(`${where}: allowPrivilegeEscalation is not false`);
      if (security.privileged === true) problems.push(`${where}: privileged`);
      const seccomp = ((security.seccompProfile ?? podSecurity.seccompProfile) as JsonObject | undefined)?.type;
      if (seccomp !== 'RuntimeDefault' && seccomp !== 'Localhost')
        problems.push(`${where}: no RuntimeDefault seccomp profile`);
      const drop = ((security.capabilities as JsonObject | undefined)?.drop ?? []) as string[];
      if (!drop.includes('ALL')) problems.push(`${where}: capabilities not dropped (drop: [ALL])`);
      if (((security.capabilities as JsonObject | undefined)?.add as string[] | undefined)?.length)
        problems.push(`${where}: adds capabilities`);
      for (const port of container.ports ?? []) {
        if ((port as JsonObject).hostPort !== undefined)
          problems.push(`${where}: hostPort ${String((port as JsonObject).hostPort)}`);
      }
    }
  }
  return problems;
}

/** Every image has a tag other than latest, or a digest; with exactVersion, a full version or a digest. */
export function imagePinProblems(objects: K8sObject[], options: { exactVersion?: boolean } = {}): string[] {
  return workloads(objects).flatMap((object) =>
    containersOf(object).flatMap((container) => {
      if (!container.image) return [`${describe(object)} container ${container.name}: no image`];
      const problem = pinProblem(container.image, options);
      return problem ? [`${describe(object)} container ${container.name}: ${problem}`] : [];
    }),
  );
}

function podsSelectedBy(
  objects: K8sObject[],
  selector: Record<string, string>,
): { object: K8sObject; containers: Container[] }[] {
  return workloads(objects)
    .filter((object) => labelsMatch(selector, podTemplateOf(object)!.metadata?.labels))
    .map((object) => ({ object, containers: containersOf(object) }));
}

/** The container port numbers a port reference (number or name) stands for on the given pods. */
function resolvePort(port: unknown, containers: Container[]): number[] {
  if (typeof port === 'number') return [port];
  return containers.flatMap((container) =>
    (container.ports ?? []).filter((p) => p.name === port).map((p) => p.containerPort),
  );
}

export interface ExposureRules {
  /** The pods' app.kubernetes.io/name that may be reached from outside the cluster: each store's gateway. */
  publicApps: string[];
  /** The only container port they may be reached on. */
  publicPort: number;
  /** Ports that Prometheus (another namespace) may reach: the ops ports. */
  opsPorts: number[];
}

function isExternalService(service: K8sObject): boolean {
  const spec = (service.spec ?? {}) as JsonObject;
  return (
    spec.type === 'LoadBalancer' ||
    spec.type === 'NodePort' ||
    (Array.isArray(spec.externalIPs) && spec.externalIPs.length > 0)
  );
}

/**
 * Only the public app's public port is reachable from outside: externally exposed Services and
 * Ingresses lead nowhere else, a default-deny ingress policy exists, a policy that admits any source
 * selects only the public app and only its public port, and one that admits other namespaces admits
 * them to ops ports only.
 */
export function exposureProblems(objects: K8sObject[], rules: ExposureRules): string[] {
  const problems: string[] = [];
  const isPublic = (selector: Record<string, string>) =>
    rules.publicApps.some((app) => labelsMatch({ [NAME_LABEL]: app }, selector));
  const publicApps = rules.publicApps.join(' or ');
  const services = objects.filter((object) => object.kind === 'Service');

  for (const service of services) {
    if (!isExternalService(service)) continue;
    const spec = service.spec as JsonObject;
    const selector = (spec.selector ?? {}) as Record<string, string>;
    if (!isPublic(selector))
      problems.push(`${describe(service)}: exposed outside the cluster but does not select ${publicApps}`);
    const pods = podsSelectedBy(objects, selector);
    for (const port of (spec.ports ?? []) as JsonObject[]) {
      const targets = resolvePort(
        port.targetPort ?? port.port,
        pods.flatMap((pod) => pod.containers),
      );
      if (targets.length === 0 || targets.some((target) => target !== rules.publicPort)) {
        problems.push(
          `${describe(service)}: exposes port ${String(port.port)} → ${targets.join(', ') || 'nothing'}, not only ${rules.publicPort}`,
        );
      }
    }
  }

  for (const ingress of objects.filter((object) => object.kind === 'Ingress')) {
    const backends = JSON.stringify(ingress.spec ?? {}).match(/"service":\{"name":"[^"]+"/g) ?? [];
    for (const backend of backends) {
      const name = backend.split('"name":"')[1].replace(/"$/, '');
      const service = services.find((candidate) => candidate.metadata.name === name);
      const selector = ((service?.spec as JsonObject | undefined)?.selector ?? {}) as Record<string, string>;
      if (!service || !isPublic(selector))
        problems.push(`${describe(ingress)}: routes to ${name}, which is not ${publicApps}`);
    }
  }

  const policies = objects.filter((object) => object.kind === 'NetworkPolicy');
  const defaultDeny = policies.some((policy) => {
    const spec = policy.spec as JsonObject;
    const podSelector = (spec.podSelector ?? {}) as JsonObject;
    return (
      Object.keys(podSelector).length === 0 &&
      ((spec.policyTypes ?? []) as string[]).includes('Ingress') &&
      ((spec.ingress ?? []) as unknown[]).length === 0
    );
  });
  if (!defaultDeny)
    problems.push('no default-deny ingress NetworkPolicy (podSelector: {}, policyTypes: [Ingress], no rules)');

  for (const policy of policies) {
    const spec = policy.spec as JsonObject;
    const podSelector = (spec.podSelector ?? {}) as JsonObject;
    const matchLabels = (podSelector.matchLabels ?? {}) as Record<string, string>;
    const selectsOnlyPublic = isPublic(matchLabels) && podSelector.matchExpressions === undefined;
    const selected = podsSelectedBy(objects, matchLabels).filter(({ object }) => {
      const expressions = (podSelector.matchExpressions ?? []) as {
        key: string;
        operator: string;
        values?: string[];
      }[];
      const labels = podTemplateOf(object)!.metadata?.labels ?? {};
      return expressions.every((e) =>
        e.operator === 'In'
          ? e.values?.includes(labels[e.key])
          : e.operator === 'NotIn'
            ? !e.values?.includes(labels[e.key])
            : true,
      );
    });
    const containers = selected.flatMap((pod) => pod.containers);
    for (const rule of (spec.ingress ?? []) as JsonObject[]) {
      const from = (rule.from ?? []) as JsonObject[];
      const ports = ((rule.ports ?? []) as JsonObject[]).flatMap((port) =>
        port.port === undefined ? [Number.NaN] : resolvePort(port.port, containers),
      );
      const openToAll =
        from.length === 0 ||
        from.some(
          (peer) =>
            peer.ipBlock !== undefined ||
            (isJsonObject(peer.namespaceSelector) &&
              Object.keys(peer.namespaceSelector).length === 0 &&
              peer.podSelector === undefined),
        );
      const fromOtherNamespaces = from.some((peer) => peer.namespaceSelector !== undefined);
      if (openToAll) {
        if (!selectsOnlyPublic)
          problems.push(`${describe(policy)}: admits any source to pods other than ${publicApps}`);
        if (ports.length === 0 || ports.some((port) => port !== rules.publicPort)) {
          problems.push(
            `${describe(policy)}: admits any source to ports ${ports.length ? ports.join(', ') : 'all'}, not only ${rules.publicPort}`,
          );
        }
      } else if (fromOtherNamespaces && (ports.length === 0 || ports.some((port) => !rules.opsPorts.includes(port)))) {
        problems.push(
          `${describe(policy)}: admits other namespaces to ports ${ports.length ? ports.join(', ') : 'all'}, beyond the ops ports`,
        );
      }
    }
  }
  return problems;
}

function probes(container: Container): Probe[] {
  return [container.readinessProbe, container.livenessProbe, container.startupProbe as Probe | undefined].filter(
    (probe): probe is Probe => probe !== undefined,
  );
}

/**
 * Nothing admin is reachable: no port or path named for it, no long-running workload runs the admin
 * CLI or holds the admin NATS credentials, and the backend services' Services carry their ops port only.
 */
export function adminExposureProblems(
  objects: K8sObject[],
  options: { backendApps: string[]; adminSecret: string },
): string[] {
  const problems: string[] = [];
  const mentionsAdmin = (value: unknown) => typeof value === 'string' && /admin/i.test(value);
  for (const object of workloads(objects)) {
    for (const container of containersOf(object)) {
      const where = `${describe(object)} container ${container.name}`;
      for (const port of container.ports ?? [])
        if (mentionsAdmin(port.name)) problems.push(`${where}: port named ${port.name}`);
      for (const probe of probes(container))
        if (mentionsAdmin(probe.httpGet?.path)) problems.push(`${where}: probes ${probe.httpGet?.path}`);
      if (LONG_RUNNING.has(object.kind)) {
        if ([...(container.command ?? []), ...(container.args ?? [])].some((part) => part.includes('apps/admin/')))
          problems.push(`${where}: runs the admin CLI as a service`);
        const secrets = [
          ...(container.envFrom ?? []).map((source) => source.secretRef?.name),
          ...(container.env ?? []).map((variable) => ((variable.valueFrom?.secretKeyRef ?? {}) as JsonObject).name),
        ];
        if (secrets.includes(options.adminSecret))
          problems.push(`${where}: holds the admin NATS credentials (${options.adminSecret})`);
      }
    }
  }
  for (const service of objects.filter((object) => object.kind === 'Service')) {
    const spec = (service.spec ?? {}) as JsonObject;
    for (const port of (spec.ports ?? []) as JsonObject[])
      if (mentionsAdmin(port.name)) problems.push(`${describe(service)}: port named ${String(port.name)}`);
    const selector = (spec.selector ?? {}) as Record<string, string>;
    if (options.backendApps.includes(selector[NAME_LABEL])) {
      const names = ((spec.ports ?? []) as JsonObject[]).map((port) => port.name);
      if (names.some((name) => name !== 'ops'))
        problems.push(
          `${describe(service)}: ${selector[NAME_LABEL]} exposes ${names.join(', ')}, not only its ops port`,
        );
    }
  }
  for (const ingress of objects.filter((object) => object.kind === 'Ingress')) {
    for (const path of JSON.stringify(ingress.spec ?? {}).match(/"path":"[^"]*"/g) ?? []) {
      if (mentionsAdmin(path)) problems.push(`${describe(ingress)}: routes ${path}`);
    }
  }
  return problems;
}

/**
 * Each app runs as a Deployment with its own HorizontalPodAutoscaler (which owns the replica count)
 * and a PodDisruptionBudget covering its pods.
 */
export function scalingProblems(objects: K8sObject[], apps: string[]): string[] {
  const problems: string[] = [];
  for (const app of apps) {
    const deployment = objects.find((object) => object.kind === 'Deployment' && object.metadata.name === app);
    if (!deployment) {
      problems.push(`no Deployment ${app}`);
      continue;
    }
    const hpas = objects.filter((object) => {
      const target = ((object.spec ?? {}) as JsonObject).scaleTargetRef as JsonObject | undefined;
      return object.kind === 'HorizontalPodAutoscaler' && target?.kind === 'Deployment' && target.name === app;
    });
    if (hpas.length !== 1)
      problems.push(`Deployment ${app}: ${hpas.length} HorizontalPodAutoscalers, expected its own one`);
    if ((deployment.spec as JsonObject).replicas !== undefined)
      problems.push(`Deployment ${app}: sets replicas, which its autoscaler owns`);
    const podLabels = podTemplateOf(deployment)!.metadata?.labels;
    const pdb = objects.find(
      (object) =>
        object.kind === 'PodDisruptionBudget' &&
        labelsMatch(
          (((object.spec ?? {}) as JsonObject).selector as JsonObject)?.matchLabels as Record<string, string>,
          podLabels,
        ),
    );
    if (!pdb) problems.push(`Deployment ${app}: no PodDisruptionBudget selects its pods`);
  }
  return problems;
}

/** Secrets referenced but neither rendered nor listed as created outside Git. */
export interface ExternalSecret {
  name: string;
  keys: string[];
}

/**
 * References resolve: ConfigMaps and Secrets (rendered, or created outside Git as listed), named
 * probe ports, Service selectors and target ports, autoscaler targets.
 */
export function referenceProblems(objects: K8sObject[], externalSecrets: ExternalSecret[] = []): string[] {
  const problems: string[] = [];
  const named = (kind: string, name: string | undefined) =>
    objects.find((object) => object.kind === kind && object.metadata.name === name);
  const secretKeys = (name: string): string[] | undefined => {
    const secret = named('Secret', name);
    if (secret)
      return Object.keys({ ...((secret.data ?? {}) as JsonObject), ...((secret.stringData ?? {}) as JsonObject) });
    return externalSecrets.find((external) => external.name === name)?.keys;
  };
  for (const object of workloads(objects)) {
    for (const container of containersOf(object)) {
      const where = `${describe(object)} container ${container.name}`;
      for (const source of container.envFrom ?? []) {
        if (source.configMapRef && !named('ConfigMap', source.configMapRef.name))
          problems.push(`${where}: no ConfigMap ${source.configMapRef.name}`);
        if (source.secretRef && !secretKeys(source.secretRef.name))
          problems.push(`${where}: no Secret ${source.secretRef.name}`);
      }
      for (const variable of container.env ?? []) {
        const ref = (variable.valueFrom?.secretKeyRef ?? variable.valueFrom?.configMapKeyRef) as
          { name: string; key: string } | undefined;
        if (!ref) continue;
        const keys = variable.valueFrom?.secretKeyRef
          ? secretKeys(ref.name)
          : Object.keys((named('ConfigMap', ref.name)?.data ?? {}) as JsonObject);
        if (!keys?.includes(ref.key))
          problems.push(`${where}: ${variable.name} refers to missing ${ref.name}/${ref.key}`);
      }
      const portNames = (container.ports ?? []).map((port) => port.name);
      for (const probe of probes(container)) {
        const port = probe.httpGet?.port ?? probe.tcpSocket?.port;
        if (typeof port === 'string' && !portNames.includes(port))
          problems.push(`${where}: probe on unknown port ${port}`);
      }
    }
  }
  for (const service of objects.filter((object) => object.kind === 'Service')) {
    const spec = (service.spec ?? {}) as JsonObject;
    if (spec.type === 'ExternalName') continue;
    const pods = podsSelectedBy(objects, (spec.selector ?? {}) as Record<string, string>);
    if (pods.length === 0) {
      problems.push(`${describe(service)}: selects no pods`);
      continue;
    }
    for (const port of (spec.ports ?? []) as JsonObject[]) {
      for (const pod of pods) {
        if (
          resolvePort(port.targetPort ?? port.port, pod.containers).length === 0 &&
          typeof (port.targetPort ?? port.port) === 'string'
        ) {
          problems.push(`${describe(service)}: ${describe(pod.object)} has no port ${String(port.targetPort)}`);
        }
      }
    }
  }
  for (const hpa of objects.filter((object) => object.kind === 'HorizontalPodAutoscaler')) {
    const target = ((hpa.spec ?? {}) as JsonObject).scaleTargetRef as JsonObject;
    if (!named(String(target.kind), String(target.name)))
      problems.push(`${describe(hpa)}: scales missing ${String(target.kind)}/${String(target.name)}`);
  }
  return problems;
}

/**
 * Scheduled jobs an operator can alert on: one run at a time (concurrencyPolicy Forbid), a bounded
 * run (activeDeadlineSeconds) with a set number of attempts (backoffLimit), pods that are not
 * restarted in place (restartPolicy Never), and failed Jobs kept (failedJobsHistoryLimit ≥ 1) so that
 * `kube_job_status_failed` and the failed pod's logs are there when the alert fires.
 */
export function cronJobProblems(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  for (const cronJob of objects.filter((object) => object.kind === 'CronJob')) {
    const where = describe(cronJob);
    const spec = (cronJob.spec ?? {}) as JsonObject;
    const jobSpec = (((spec.jobTemplate ?? {}) as JsonObject).spec ?? {}) as JsonObject;
    if (spec.concurrencyPolicy !== 'Forbid') problems.push(`${where}: concurrencyPolicy is not Forbid`);
    if (typeof spec.failedJobsHistoryLimit !== 'number' || spec.failedJobsHistoryLimit < 1)
      problems.push(`${where}: keeps no failed Job (failedJobsHistoryLimit)`);
    if (typeof jobSpec.activeDeadlineSeconds !== 'number')
      problems.push(`${where}: runs without activeDeadlineSeconds`);
    if (typeof jobSpec.backoffLimit !== 'number') problems.push(`${where}: no backoffLimit`);
    if (podTemplateOf(cronJob)?.spec.restartPolicy !== 'Never') problems.push(`${where}: restartPolicy is not Never`);
  }
  return problems;
}
