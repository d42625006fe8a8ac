import { existsSync, readFileSync } from 'node:fs';
import {
  composeSchemaProblems,
  type ComposeService,
  environmentOf,
  loadComposeFile,
  publishedPorts,
} from '../src/compose/compose.js';
import { parseDockerfile, stages } from '../src/docker/dockerfile.js';
import { pinProblem } from '../src/images.js';
import { isJsonObject } from '../src/kubernetes/objects.js';
import { repoPath } from '../src/repo.js';
import { readYamlDocument } from '../src/yaml-documents.js';

const compose = loadComposeFile(repoPath('docker-compose.yml'));
const services = compose.services;
const APP_IMAGE = 'appcat:local';
const appServices = Object.entries(services).filter(([, service]) => service.image === APP_IMAGE);

const isLoopback = (ip: string | undefined) =>
  ip !== undefined && (/^127\./.test(ip) || ip === '::1' || ip === 'localhost');

function healthcheckPort(service: ComposeService): number | undefined {
  const test = service.healthcheck?.test as string[] | undefined;
  const url = test?.find((part) => /^https?:\/\//.test(part));
  return url ? Number(new URL(url).port) : undefined;
}

describe('docker-compose.yml', () => {
  it('follows the Compose Specification', () => {
    expect(composeSchemaProblems(readYamlDocument(repoPath('docker-compose.yml')))).toEqual([]);
  });

  it('runs the whole system', () => {
    expect(Object.keys(services).sort()).toEqual(
      [
        'catalog',
        'facilitator',
        'gateway',
        'local-chain',
        'migrate',
        'nats',
        'payments',
        'play-catalog',
        'play-gateway',
        'postgres',
        'redis',
        'store-emulator',
      ].sort(),
    );
  });

  it('keeps the infrastructure npm start brings up, on loopback-only ports', () => {
    expect(publishedPorts(services.postgres)).toEqual([{ hostIp: '127.0.0.1', published: '5432', target: '5432' }]);
    expect(publishedPorts(services.redis)).toEqual([{ hostIp: '127.0.0.1', published: '6379', target: '6379' }]);
    expect(publishedPorts(services.nats)).toEqual([{ hostIp: '127.0.0.1', published: '4222', target: '4222' }]);
  });

  it('publishes a port on every interface for the gateways only, each its public port', () => {
    const open = Object.entries(services).flatMap(([name, service]) =>
      publishedPorts(service)
        .filter((port) => !isLoopback(port.hostIp))
        .map((port) => `${name} ${port.hostIp ?? '*'}:${port.published ?? 'random'}→${port.target}`),
    );
    expect(open).toEqual(['gateway *:3000→3000', 'play-gateway *:3001→3001']);
    for (const [name] of appServices.filter(([name]) => name !== 'gateway' && name !== 'play-gateway'))
      expect(publishedPorts(services[name])).toEqual([]);
  });

  it('gives every long-running service a health check, and the migration none', () => {
    for (const [name, service] of Object.entries(services)) {
      if (name === 'migrate') {
        expect(service.healthcheck).toEqual({ disable: true });
        expect(service.restart).toBe('no');
      } else {
        expect({ name, test: Array.isArray(service.healthcheck?.test) }).toEqual({ name, test: true });
      }
    }
  });

  it('starts each service after what it needs is healthy, or, for the migration, done', () => {
    const problems: string[] = [];
    for (const [name, service] of Object.entries(services)) {
      const dependsOn = service.depends_on ?? {};
      if (Array.isArray(dependsOn)) {
        problems.push(`${name}: depends_on without conditions`);
        continue;
      }
      for (const [dependency, { condition }] of Object.entries(dependsOn)) {
        const target = services[dependency];
        if (!target) problems.push(`${name}: depends on unknown ${dependency}`);
        else if (dependency === 'migrate' && condition !== 'service_completed_successfully')
          problems.push(`${name}: waits for migrate with ${condition}`);
        else if (
          dependency !== 'migrate' &&
          (condition !== 'service_healthy' || !Array.isArray(target.healthcheck?.test))
        ) {
          problems.push(`${name}: waits for ${dependency} with ${condition}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(Object.keys(services.payments.depends_on ?? {})).toEqual(
      expect.arrayContaining(['migrate', 'postgres', 'redis', 'nats']),
    );
    expect(Object.keys(services.catalog.depends_on ?? {})).toEqual(
      expect.arrayContaining(['redis', 'nats', 'store-emulator']),
    );
    expect(Object.keys(services.gateway.depends_on ?? {})).toEqual(
      expect.arrayContaining(['nats', 'payments', 'catalog']),
    );
    expect(Object.keys(services['play-gateway'].depends_on ?? {})).toEqual(
      expect.arrayContaining(['nats', 'payments', 'play-catalog']),
    );
  });

  it('pins every image: infrastructure by exact version, the application by its local tag', () => {
    const problems = Object.entries(services).flatMap(([name, service]) => {
      if (!service.image) return [`${name}: no image`];
      const problem = pinProblem(service.image, { exactVersion: service.image !== APP_IMAGE });
      return problem ? [`${name}: ${problem}`] : [];
    });
    expect(problems).toEqual([]);
  });

  it('builds every application service from the Dockerfile runtime stage', () => {
    const stageNames = stages(parseDockerfile(readFileSync(repoPath('Dockerfile'), 'utf8'))).map((stage) => stage.name);
    expect(appServices.map(([name]) => name).sort()).toEqual([
      'catalog',
      'facilitator',
      'gateway',
      'local-chain',
      'migrate',
      'payments',
      'play-catalog',
      'play-gateway',
      'store-emulator',
    ]);
    for (const [, service] of appServices) {
      expect(service.build).toEqual({ context: '.', target: 'runtime' });
      expect(
        existsSync(repoPath(isJsonObject(service.build) ? String(service.build.context) : '.', 'Dockerfile')),
      ).toBe(true);
    }
    expect(stageNames).toContain('runtime');
  });

  it('confines the application containers: read-only, no capabilities, no new privileges', () => {
    for (const [name, service] of appServices) {
      expect({
        name,
        read_only: service.read_only,
        cap_drop: service.cap_drop,
        security_opt: service.security_opt,
      }).toEqual({
        name,
        read_only: true,
        cap_drop: ['ALL'],
        security_opt: ['no-new-privileges:true'],
      });
    }
  });

  it('binds the services to every interface of their container and probes the ports they listen on', () => {
    for (const name of ['gateway', 'play-gateway']) {
      const gateway = environmentOf(services[name]);
      expect([gateway.HOST, gateway.OPS_HOST]).toEqual(['0.0.0.0', '0.0.0.0']);
      expect(healthcheckPort(services[name])).toBe(Number(gateway.PORT));
    }
    for (const [name, opsPort] of [
      ['payments', 9101],
      ['catalog', 9102],
      ['play-catalog', 9102],
    ] as const) {
      const environment = environmentOf(services[name]);
      expect({
        name,
        host: environment.OPS_HOST,
        port: Number(environment.OPS_PORT),
        probed: healthcheckPort(services[name]),
      }).toEqual({
        name,
        host: '0.0.0.0',
        port: opsPort,
        probed: opsPort,
      });
    }
    expect(Number(environmentOf(services.gateway).OPS_PORT)).toBe(9100);
    expect(healthcheckPort(services['store-emulator'])).toBe(
      Number(environmentOf(services['store-emulator']).STORE_EMULATOR_PORT),
    );
    expect(healthcheckPort(services['local-chain'])).toBe(
      Number(environmentOf(services['local-chain']).LOCAL_CHAIN_PORT),
    );
    expect(healthcheckPort(services.facilitator)).toBe(Number(environmentOf(services.facilitator).FACILITATOR_PORT));
  });

  it('points the services at each other by Compose service name', () => {
    const urls = appServices
      .flatMap(([, service]) => Object.values(environmentOf(service)))
      .filter((value) => /^[a-z]+:\/\//.test(value));
    const hosts = new Set(urls.flatMap((value) => value.split(',').map((url) => new URL(url).hostname)));
    hosts.delete('localhost');
    expect([...hosts].filter((host) => !services[host])).toEqual([]);
  });

  it("runs Google Play's catalog and gateway as the same images configured for that store", () => {
    expect(environmentOf(services['play-catalog'])).toMatchObject({ CATALOG_STORE: 'google-play' });
    expect(environmentOf(services['play-gateway'])).toMatchObject({
      GATEWAY_STORE: 'google-play',
      PUBLIC_BASE_URL: 'http://localhost:3001',
    });
    expect(services['play-catalog'].command).toEqual(services.catalog.command);
    expect(services['play-gateway'].command).toEqual(services.gateway.command);
  });
});
