import { readdirSync } from 'node:fs';
import { renderKustomization } from '../src/kustomize/kustomize.js';
import {
  adminExposureProblems,
  cronJobProblems,
  type ExternalSecret,
  exposureProblems,
  imagePinProblems,
  probeAndResourceProblems,
  referenceProblems,
  scalingProblems,
  securityProblems,
} from '../src/kubernetes/invariants.js';
import { asK8sObject, containersOf, type JsonObject, type K8sObject } from '../src/kubernetes/objects.js';
import { schemaProblems } from '../src/kubernetes/schema.js';
import { unknownFieldProblems } from '../src/kubernetes/strict-fields.js';
import { repoPath } from '../src/repo.js';
import { readYamlDocuments } from '../src/yaml-documents.js';

const OVERLAYS = ['base', 'overlays/local', 'overlays/production', 'overlays/production-clusters'] as const;
const APPS = ['gateway', 'payments', 'catalog'];
/** Google Play's gateway and catalog, which the overlays add with the google-play component. */
const PLAY_APPS = ['gateway-google-play', 'catalog-google-play'];
const appsOf = (overlay: string) => (overlay === 'base' ? APPS : [...APPS, ...PLAY_APPS]);
const EXPOSURE = { publicApps: ['gateway', 'gateway-google-play'], publicPort: 3000, opsPorts: [9100, 9101, 9102] };
const ADMIN = { backendApps: ['payments', 'catalog', 'catalog-google-play'], adminSecret: 'admin-nats' };

const rendered = new Map<string, K8sObject[]>();
function render(overlay: string): K8sObject[] {
  if (!rendered.has(overlay)) rendered.set(overlay, renderKustomization(repoPath('k8s', overlay)));
  return rendered.get(overlay)!;
}

function byKind(objects: K8sObject[], kind: string, name?: string): K8sObject[] {
  return objects.filter((object) => object.kind === kind && (name === undefined || object.metadata.name === name));
}

/** Production's Secrets are created outside Git; secrets.example.yaml lists them with their keys. */
function productionSecrets(): ExternalSecret[] {
  return readYamlDocuments(repoPath('k8s/overlays/production/secrets.example.yaml')).map((document) => {
    const secret = asK8sObject(document, 'secrets.example.yaml');
    return { name: secret.metadata.name!, keys: Object.keys((secret.stringData ?? {}) as JsonObject) };
  });
}

const toolJobs = () =>
  readdirSync(repoPath('k8s/tools')).flatMap((file) =>
    readYamlDocuments(repoPath('k8s/tools', file)).map((document) => asK8sObject(document, `k8s/tools/${file}`)),
  );

describe.each(OVERLAYS)('k8s/%s', (overlay) => {
  it('renders objects that are valid against the Kubernetes schemas', () => {
    const objects = render(overlay);
    expect(objects.length).toBeGreaterThan(10);
    expect(objects.flatMap(schemaProblems)).toEqual([]);
  });

  it('uses only fields the Kubernetes API defines', () => {
    expect(unknownFieldProblems(render(overlay))).toEqual([]);
  });

  it('gives every container liveness and readiness probes and resource requests and limits', () => {
    expect(probeAndResourceProblems(render(overlay))).toEqual([]);
  });

  it('runs every container as non-root, read-only, without capabilities', () => {
    expect(securityProblems(render(overlay))).toEqual([]);
  });

  it('pins every image', () => {
    expect(imagePinProblems(render(overlay))).toEqual([]);
  });

  it('lets only the gateway public port be reached from outside', () => {
    expect(exposureProblems(render(overlay), EXPOSURE)).toEqual([]);
  });

  it('exposes nothing admin', () => {
    expect(adminExposureProblems(render(overlay), ADMIN)).toEqual([]);
  });

  it("gives gateway, payments and catalog (and Google Play's gateway and catalog) each their own autoscaler and disruption budget", () => {
    expect(scalingProblems(render(overlay), appsOf(overlay))).toEqual([]);
  });

  it('schedules its CronJobs so an operator can alert on a failed run', () => {
    expect(cronJobProblems(render(overlay))).toEqual([]);
  });

  it('ships the upstream drift check suspended, on the catalog image and settings, printing JSON', () => {
    const [cronJob] = byKind(render(overlay), 'CronJob', 'upstream-check');
    expect((cronJob.spec as JsonObject).suspend).toBe(true);
    const [container] = containersOf(cronJob);
    const [catalog] = containersOf(byKind(render(overlay), 'Deployment', 'catalog')[0]);
    expect(container.image).toBe(catalog.image);
    expect(container.command).toEqual(['node', 'apps/catalog/dist/upstream-check/main.js', '--json']);
    expect(container.envFrom).toEqual([{ configMapRef: { name: 'catalog-config' } }]);
  });

  it('runs a migration Job with the payments database URL', () => {
    const [job] = byKind(render(overlay), 'Job', 'appcat-migrate');
    const [container] = containersOf(job);
    expect(container.command).toEqual(['node', 'apps/payments/dist/migrate/cli.js']);
    expect(container.env?.find((variable) => variable.name === 'DATABASE_URL')?.valueFrom).toEqual({
      secretKeyRef: { name: 'payments-secrets', key: 'DATABASE_URL' },
    });
  });
});

describe('k8s/overlays/local', () => {
  it('resolves every reference within the overlay, Secrets included', () => {
    expect(referenceProblems(render('overlays/local'))).toEqual([]);
  });

  it('runs the image built locally and puts everything in its namespace', () => {
    const objects = render('overlays/local');
    const images = new Set(objects.flatMap(containersOf).map((container) => container.image));
    expect(images).toContain('appcat:local');
    expect([...images].filter((image) => image?.startsWith('appcat:'))).toEqual(['appcat:local']);
    expect(
      objects.filter((object) => object.kind !== 'Namespace' && object.metadata.namespace !== 'appcat-local'),
    ).toEqual([]);
    expect(byKind(objects, 'Namespace').map((namespace) => namespace.metadata.name)).toEqual(['appcat-local']);
  });
});

describe('k8s/overlays/production', () => {
  it('renders no Secret: they are created outside Git', () => {
    expect(byKind(render('overlays/production'), 'Secret')).toEqual([]);
  });

  it('resolves every reference, with the Secrets secrets.example.yaml lists', () => {
    expect(referenceProblems(render('overlays/production'), productionSecrets())).toEqual([]);
  });

  it("puts only the gateways behind load balancers, each store's at its own address, on port 80 to the public port", () => {
    const external = byKind(render('overlays/production'), 'Service').filter(
      (service) => (service.spec as JsonObject).type === 'LoadBalancer',
    );
    expect(external.map((service) => service.metadata.name)).toEqual(['gateway', 'gateway-google-play']);
    for (const service of external)
      expect((service.spec as JsonObject).ports).toEqual([
        { name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' },
      ]);
  });

  it("runs Google Play's gateway and catalog on the same image, configured for that store, as the NATS users of their kind", () => {
    const objects = render('overlays/production');
    const config = (name: string) => byKind(objects, 'ConfigMap', name)[0].data as Record<string, string>;
    expect(config('gateway-google-play-config')).toMatchObject({ GATEWAY_STORE: 'google-play' });
    expect(config('catalog-google-play-config')).toMatchObject({
      CATALOG_STORE: 'google-play',
      PLAY_BASE_URL: 'https://play.google.com',
    });
    expect(config('gateway-google-play-config').PUBLIC_BASE_URL).not.toBe(config('gateway-config').PUBLIC_BASE_URL);
    for (const [play, apple] of [
      ['gateway-google-play', 'gateway'],
      ['catalog-google-play', 'catalog'],
    ]) {
      const [playContainer] = containersOf(byKind(objects, 'Deployment', play)[0]);
      const [appleContainer] = containersOf(byKind(objects, 'Deployment', apple)[0]);
      expect([playContainer.image, playContainer.command]).toEqual([appleContainer.image, appleContainer.command]);
      expect(playContainer.envFrom?.map((source) => source.secretRef?.name).filter(Boolean)).toEqual(
        appleContainer.envFrom?.map((source) => source.secretRef?.name).filter(Boolean),
      );
    }
  });

  it('runs the release image from the registry, by exact version, set through kustomize images', () => {
    const objects = render('overlays/production');
    expect(imagePinProblems(objects, { exactVersion: true })).toEqual([]);
    const images = new Set(objects.flatMap(containersOf).map((container) => container.image));
    expect([...images]).toEqual(['registry.example.com/appcat/appcat:1.0.0']);
  });

  it('reaches Postgres, Redis and NATS as external services', () => {
    const external = byKind(render('overlays/production'), 'Service').filter(
      (service) => (service.spec as JsonObject).type === 'ExternalName',
    );
    expect(external.map((service) => service.metadata.name).sort()).toEqual(['nats', 'postgres', 'redis']);
  });

  it('connects each service to NATS as its own user, and none as admin', () => {
    const objects = render('overlays/production');
    const natsSecret = (app: string) =>
      containersOf(byKind(objects, 'Deployment', app)[0])
        .flatMap((container) => (container.envFrom ?? []).map((source) => source.secretRef?.name))
        .filter((name) => name?.endsWith('-nats'));
    for (const app of APPS) expect(natsSecret(app)).toEqual([`${app}-nats`]);
    expect(productionSecrets().find((secret) => secret.name === 'admin-nats')?.keys).toEqual([
      'NATS_USER',
      'NATS_PASSWORD',
    ]);
  });

  it('scales further than the base, the catalog furthest', () => {
    const maxReplicas = (overlay: string, app: string) =>
      (byKind(render(overlay), 'HorizontalPodAutoscaler', app)[0].spec as JsonObject).maxReplicas as number;
    for (const app of APPS) expect(maxReplicas('overlays/production', app)).toBeGreaterThan(maxReplicas('base', app));
    expect(maxReplicas('overlays/production', 'catalog')).toBeGreaterThan(
      maxReplicas('overlays/production', 'gateway'),
    );
  });
});

describe('k8s/tools', () => {
  it('holds admin Jobs that are valid, confined and use the admin NATS user', () => {
    const jobs = toolJobs();
    expect(jobs.length).toBeGreaterThan(0);
    expect(jobs.flatMap(schemaProblems)).toEqual([]);
    expect(unknownFieldProblems(jobs)).toEqual([]);
    expect([
      ...probeAndResourceProblems(jobs),
      ...securityProblems(jobs),
      ...imagePinProblems(jobs, { exactVersion: true }),
    ]).toEqual([]);
    for (const job of jobs) {
      expect(job.kind).toBe('Job');
      const [container] = containersOf(job);
      expect(container.command?.slice(0, 3)).toEqual(['node', 'apps/admin/dist/main.js', 'keys']);
      expect(container.command).toContain('--json');
      expect(container.envFrom?.map((source) => source.secretRef?.name ?? source.configMapRef?.name)).toEqual([
        'appcat-common',
        'admin-nats',
      ]);
    }
  });
});

describe('k8s/overlays/production-clusters', () => {
  const configMap = (name: string) =>
    byKind(render('overlays/production-clusters'), 'ConfigMap', name)[0].data as Record<string, string>;

  it('is production with the Secrets secrets.example.yaml lists, and no Secret of its own', () => {
    expect(byKind(render('overlays/production-clusters'), 'Secret')).toEqual([]);
    expect(referenceProblems(render('overlays/production-clusters'), productionSecrets())).toEqual([]);
    expect(
      render('overlays/production-clusters')
        .map((object) => `${object.kind}/${object.metadata.name}`)
        .sort(),
    ).toEqual(
      render('overlays/production')
        .map((object) => `${object.kind}/${object.metadata.name}`)
        .sort(),
    );
  });

  it('gives every service all three NATS servers and the Redis Cluster seed nodes, and payments a sharded ledger', () => {
    const common = configMap('appcat-common');
    expect(common.NATS_URL.split(',')).toHaveLength(3);
    expect(common.REDIS_CLUSTER_NODES.split(',')).toHaveLength(3);
    for (const node of common.REDIS_CLUSTER_NODES.split(',')) expect(node).toMatch(/^[a-z0-9.-]+:\d+$/);
    expect(Number(configMap('payments-config').LEDGER_STREAM_SHARDS)).toBeGreaterThan(1);
  });
});
