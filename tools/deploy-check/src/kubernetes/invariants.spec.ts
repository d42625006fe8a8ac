import { goodDeployment } from './fixtures.js';
import {
  adminExposureProblems,
  cronJobProblems,
  exposureProblems,
  imagePinProblems,
  probeAndResourceProblems,
  referenceProblems,
  scalingProblems,
  securityProblems,
} from './invariants.js';
import { containersOf, type JsonObject, type K8sObject } from './objects.js';

const RULES = { publicApps: ['gateway'], publicPort: 3000, opsPorts: [9100, 9101, 9102] };
const defaultDeny: K8sObject = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name: 'default-deny' },
  spec: { podSelector: {}, policyTypes: ['Ingress'] },
};

function service(name: string, selectorApp: string, spec: JsonObject): K8sObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name },
    spec: { selector: { 'app.kubernetes.io/name': selectorApp }, ...spec },
  };
}

function policy(name: string, spec: JsonObject): K8sObject {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name },
    spec: { policyTypes: ['Ingress'], ...spec },
  };
}

function withContainer(change: (container: JsonObject) => void): K8sObject {
  const deployment = goodDeployment();
  change(containersOf(deployment)[0] as JsonObject);
  return deployment;
}

describe('probeAndResourceProblems', () => {
  it('accepts a container with both probes, requests and limits', () => {
    expect(probeAndResourceProblems([goodDeployment()])).toEqual([]);
  });

  it('names a missing probe and a missing limit', () => {
    const deployment = withContainer((container) => {
      delete container.livenessProbe;
      delete (container.resources as JsonObject).limits;
    });
    expect(probeAndResourceProblems([deployment])).toEqual([
      'Deployment/gateway container gateway: no livenessProbe',
      'Deployment/gateway container gateway: no cpu limits',
      'Deployment/gateway container gateway: no memory limits',
    ]);
  });

  it('does not ask a Job for probes, but does for resources', () => {
    const job: K8sObject = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'once' },
      spec: { template: (goodDeployment().spec as JsonObject).template },
    };
    const container = containersOf(job)[0] as JsonObject;
    delete container.readinessProbe;
    delete container.livenessProbe;
    expect(probeAndResourceProblems([job])).toEqual([]);
    delete (container.resources as JsonObject).requests;
    expect(probeAndResourceProblems([job])).toHaveLength(2);
  });
});

describe('securityProblems', () => {
  it('accepts a non-root, read-only container without capabilities', () => {
    expect(securityProblems([goodDeployment()])).toEqual([]);
  });

  it('refuses root, a writable root filesystem, no seccomp profile and kept capabilities', () => {
    const deployment = withContainer((container) => {
      container.securityContext = { runAsUser: 0, capabilities: { drop: ['NET_RAW'] } };
    });
    ((deployment.spec as JsonObject).template as JsonObject).spec = {
      ...(((deployment.spec as JsonObject).template as JsonObject).spec as JsonObject),
      securityContext: {},
    };
    expect(securityProblems([deployment])).toEqual([
      'Deployment/gateway container gateway: runAsNonRoot is not true',
      'Deployment/gateway container gateway: runs as user 0',
      'Deployment/gateway container gateway: root filesystem is writable',
      'Deployment/gateway container gateway: allowPrivilegeEscalation is not false',
      'Deployment/gateway container gateway: no RuntimeDefault seccomp profile',
      'Deployment/gateway container gateway: capabilities not dropped (drop: [ALL])',
    ]);
  });
});

describe('imagePinProblems', () => {
  it.each(['appcat', 'appcat:latest', 'registry.example.com:5000/appcat'])('refuses %s', (image) => {
    expect(imagePinProblems([withContainer((container) => (container.image = image))])).toHaveLength(1);
  });

  it('accepts a tag or a digest, and with exactVersion only a full version or a digest', () => {
    expect(imagePinProblems([withContainer((container) => (container.image = 'appcat:local'))])).toEqual([]);
    expect(
      imagePinProblems([withContainer((container) => (container.image = 'appcat:local'))], { exactVersion: true }),
    ).toHaveLength(1);
    expect(
      imagePinProblems(
        [withContainer((container) => (container.image = `r.example.com/appcat@sha256:${'a'.repeat(64)}`))],
        { exactVersion: true },
      ),
    ).toEqual([]);
  });
});

describe('exposureProblems', () => {
  const gatewayPolicy = policy('gateway', {
    podSelector: { matchLabels: { 'app.kubernetes.io/name': 'gateway' } },
    ingress: [{ ports: [{ port: 3000 }] }],
  });

  it('accepts a gateway LoadBalancer, a default deny and the gateway port open to all', () => {
    const objects = [
      goodDeployment(),
      defaultDeny,
      gatewayPolicy,
      service('gateway', 'gateway', { type: 'LoadBalancer', ports: [{ port: 80, targetPort: 'http' }] }),
    ];
    expect(exposureProblems(objects, RULES)).toEqual([]);
  });

  it('refuses a LoadBalancer in front of payments and the ops port on the public Service', () => {
    const objects = [
      goodDeployment(),
      goodDeployment('payments', 9101),
      defaultDeny,
      service('payments', 'payments', { type: 'LoadBalancer', ports: [{ port: 80, targetPort: 'http' }] }),
      service('gateway', 'gateway', { type: 'NodePort', ports: [{ port: 9100, targetPort: 'ops' }] }),
    ];
    expect(exposureProblems(objects, RULES)).toEqual([
      'Service/payments: exposed outside the cluster but does not select gateway',
      'Service/payments: exposes port 80 → 9101, not only 3000',
      'Service/gateway: exposes port 9100 → 9100, not only 3000',
    ]);
  });

  it('wants a default-deny policy', () => {
    expect(exposureProblems([goodDeployment(), gatewayPolicy], RULES)).toEqual([
      'no default-deny ingress NetworkPolicy (podSelector: {}, policyTypes: [Ingress], no rules)',
    ]);
  });

  it('refuses a policy that opens every port, or another app, to any source', () => {
    const objects = [
      goodDeployment(),
      goodDeployment('payments', 9101),
      defaultDeny,
      policy('all-gateway', { podSelector: { matchLabels: { 'app.kubernetes.io/name': 'gateway' } }, ingress: [{}] }),
      policy('payments', {
        podSelector: { matchLabels: { 'app.kubernetes.io/name': 'payments' } },
        ingress: [{ from: [{ ipBlock: { cidr: '0.0.0.0/0' } }], ports: [{ port: 3000 }] }],
      }),
      policy('ops-everywhere', {
        podSelector: {},
        ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: 'x' } } }] }],
      }),
    ];
    expect(exposureProblems(objects, RULES)).toEqual([
      'NetworkPolicy/all-gateway: admits any source to ports all, not only 3000',
      'NetworkPolicy/payments: admits any source to pods other than gateway',
      'NetworkPolicy/ops-everywhere: admits other namespaces to ports all, beyond the ops ports',
    ]);
  });
});

describe('adminExposureProblems', () => {
  const options = { backendApps: ['payments'], adminSecret: 'admin-nats' };

  it('refuses an admin port, a service running the admin CLI with its credentials, and more than ops on a backend Service', () => {
    const deployment = withContainer((container) => {
      container.ports = [{ name: 'admin', containerPort: 9999 }];
      container.command = ['node', 'apps/admin/dist/main.js'];
      container.envFrom = [{ secretRef: { name: 'admin-nats' } }];
    });
    const objects = [
      deployment,
      service('payments', 'payments', {
        ports: [
          { name: 'http', port: 80 },
          { name: 'ops', port: 9101 },
        ],
      }),
    ];
    expect(adminExposureProblems(objects, options)).toEqual([
      'Deployment/gateway container gateway: port named admin',
      'Deployment/gateway container gateway: runs the admin CLI as a service',
      'Deployment/gateway container gateway: holds the admin NATS credentials (admin-nats)',
      'Service/payments: payments exposes http, ops, not only its ops port',
    ]);
  });

  it('accepts an ops-only backend Service', () => {
    expect(
      adminExposureProblems(
        [goodDeployment(), service('payments-ops', 'payments', { ports: [{ name: 'ops', port: 9101 }] })],
        options,
      ),
    ).toEqual([]);
  });
});

describe('scalingProblems', () => {
  const hpa = (name: string, target: string): K8sObject => ({
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: target }, maxReplicas: 3 },
  });
  const pdb = (app: string): K8sObject => ({
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: app },
    spec: { maxUnavailable: 1, selector: { matchLabels: { 'app.kubernetes.io/name': app } } },
  });

  it('accepts a Deployment with its own autoscaler and budget', () => {
    expect(
      scalingProblems([goodDeployment('catalog'), hpa('catalog', 'catalog'), pdb('catalog')], ['catalog']),
    ).toEqual([]);
  });

  it('refuses a missing autoscaler, fixed replicas and a missing budget', () => {
    const deployment = goodDeployment('catalog');
    (deployment.spec as JsonObject).replicas = 3;
    expect(scalingProblems([deployment, hpa('gateway', 'gateway')], ['catalog'])).toEqual([
      'Deployment catalog: 0 HorizontalPodAutoscalers, expected its own one',
      'Deployment catalog: sets replicas, which its autoscaler owns',
      'Deployment catalog: no PodDisruptionBudget selects its pods',
    ]);
  });
});

describe('referenceProblems', () => {
  it('names missing ConfigMaps, Secrets and keys, unknown probe ports and empty selectors', () => {
    const deployment = withContainer((container) => {
      container.envFrom = [{ configMapRef: { name: 'nowhere' } }, { secretRef: { name: 'external' } }];
      container.env = [{ name: 'DATABASE_URL', valueFrom: { secretKeyRef: { name: 'external', key: 'MISSING' } } }];
      container.livenessProbe = { httpGet: { path: '/healthz', port: 'metrics' } };
    });
    const objects = [deployment, service('orphan', 'nobody', { ports: [{ port: 80 }] })];
    expect(referenceProblems(objects, [{ name: 'external', keys: ['DATABASE_URL'] }])).toEqual([
      'Deployment/gateway container gateway: no ConfigMap nowhere',
      'Deployment/gateway container gateway: DATABASE_URL refers to missing external/MISSING',
      'Deployment/gateway container gateway: probe on unknown port metrics',
      'Service/orphan: selects no pods',
    ]);
  });
});

describe('cronJobProblems', () => {
  const cronJob = (
    change: (spec: JsonObject, jobSpec: JsonObject, podSpec: JsonObject) => void = () => undefined,
  ): K8sObject => {
    const podSpec: JsonObject = { restartPolicy: 'Never', containers: [{ name: 'check', image: 'appcat:1.0.0' }] };
    const jobSpec: JsonObject = { backoffLimit: 0, activeDeadlineSeconds: 300, template: { spec: podSpec } };
    const spec: JsonObject = {
      schedule: '0 * * * *',
      concurrencyPolicy: 'Forbid',
      failedJobsHistoryLimit: 3,
      jobTemplate: { spec: jobSpec },
    };
    change(spec, jobSpec, podSpec);
    return { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'check' }, spec };
  };

  it('accepts one run at a time, bounded, not restarted, failures kept', () => {
    expect(cronJobProblems([cronJob()])).toEqual([]);
  });

  it('names each rule a CronJob breaks', () => {
    const bad = cronJob((spec, jobSpec, podSpec) => {
      spec.concurrencyPolicy = 'Allow';
      spec.failedJobsHistoryLimit = 0;
      delete jobSpec.activeDeadlineSeconds;
      delete jobSpec.backoffLimit;
      podSpec.restartPolicy = 'OnFailure';
    });
    expect(cronJobProblems([bad])).toEqual([
      'CronJob/check: concurrencyPolicy is not Forbid',
      'CronJob/check: keeps no failed Job (failedJobsHistoryLimit)',
      'CronJob/check: runs without activeDeadlineSeconds',
      'CronJob/check: no backoffLimit',
      'CronJob/check: restartPolicy is not Never',
    ]);
  });
});
