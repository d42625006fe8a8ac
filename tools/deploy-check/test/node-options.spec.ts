import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { environmentOf, loadComposeFile } from '../src/compose/compose.js';
import { parseDockerfile, stages } from '../src/docker/dockerfile.js';
import { containersOf } from '../src/kubernetes/objects.js';
import { renderKustomization } from '../src/kustomize/kustomize.js';
import { repoPath } from '../src/repo.js';

/**
 * The services' node options (a small young generation and a single-threaded collector:
 * docs/benchmarks.md) are set in package.json's config.serviceNodeOptions, which `npm start` and the
 * bench read. The image, Compose and Kubernetes cannot read it, so each service command carries a copy.
 * They go on the command line, not in NODE_OPTIONS: Node refuses --single-threaded-gc there.
 */
const deployed = JSON.parse(readFileSync(repoPath('package.json'), 'utf8')).config as {
  serviceNodeOptions: string;
  serviceEnvironment: Record<string, string>;
};
const serviceNodeOptions: string[] = deployed.serviceNodeOptions.split(/\s+/).filter(Boolean);
/**
 * The services' environment (MALLOC_ARENA_MAX: docs/deployment.md), set in package.json's
 * config.serviceEnvironment for `npm start` and the bench, and by the runtime image for Compose and
 * Kubernetes, which neither may set otherwise.
 */
const serviceEnvironment = Object.entries(deployed.serviceEnvironment);
const SERVICES = ['gateway', 'payments', 'catalog'] as const;
const commandOf = (service: string): string[] => ['node', ...serviceNodeOptions, `apps/${service}/dist/main.js`];

function runtimeInstructions() {
  return (
    stages(parseDockerfile(readFileSync(repoPath('Dockerfile'), 'utf8'))).find((stage) => stage.name === 'runtime')
      ?.instructions ?? []
  );
}

describe('service node options', () => {
  it('are set in package.json', () => {
    expect(serviceNodeOptions.length).toBeGreaterThan(0);
    for (const option of serviceNodeOptions) expect(option).toMatch(/^--[a-z-]+(=\S+)?$/);
  });

  it("start the runtime image's default command, and no NODE_OPTIONS of the image drops or repeats them", () => {
    const instructions = runtimeInstructions();
    const cmd = instructions.find((instruction) => instruction.keyword === 'CMD');
    expect(JSON.parse(cmd!.args)).toEqual(commandOf('gateway'));
    const env = instructions
      .filter((instruction) => instruction.keyword === 'ENV')
      .map((instruction) => instruction.args);
    expect(env.join(' ')).not.toMatch(/NODE_OPTIONS/);
  });

  it('start every service in Compose', () => {
    const services = loadComposeFile(repoPath('docker-compose.yml')).services;
    for (const service of SERVICES)
      expect({ service, command: services[service]?.command }).toEqual({ service, command: commandOf(service) });
  });

  it.each(['base', 'overlays/local', 'overlays/production'])(
    'start every service Deployment of %s, and its NODE_OPTIONS do not carry them',
    (overlay) => {
      const objects = renderKustomization(repoPath('k8s', overlay));
      for (const service of SERVICES) {
        const deployment = objects.find((object) => object.kind === 'Deployment' && object.metadata.name === service);
        const [container] = containersOf(deployment!);
        expect({ service, command: container.command }).toEqual({ service, command: commandOf(service) });
      }
      for (const configMap of objects.filter((object) => object.kind === 'ConfigMap')) {
        const nodeOptions = (configMap.data as Record<string, string> | undefined)?.NODE_OPTIONS;
        if (nodeOptions === undefined) continue;
        expect({
          configMap: configMap.metadata.name,
          inNodeOptions: serviceNodeOptions.filter((option) => nodeOptions.split(/\s+/).includes(option)),
        }).toEqual({
          configMap: configMap.metadata.name,
          inNodeOptions: [],
        });
      }
    },
  );

  it('are all options node accepts on its command line', () => {
    expect(
      execFileSync(process.execPath, [...serviceNodeOptions, '-e', 'process.stdout.write("ok")'], { encoding: 'utf8' }),
    ).toBe('ok');
  });
});

describe('service environment', () => {
  it('is set in package.json, a value for each name', () => {
    expect(serviceEnvironment.length).toBeGreaterThan(0);
    for (const [name, value] of serviceEnvironment) expect(`${name}=${value}`).toMatch(/^[A-Z][A-Z0-9_]*=\S+$/);
  });

  it('is set by the runtime image', () => {
    const env = runtimeInstructions()
      .filter((instruction) => instruction.keyword === 'ENV')
      .flatMap((instruction) => [...instruction.args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=(\S+)/g)])
      .map(([, name, value]) => [name, value]);
    for (const pair of serviceEnvironment) expect(env).toContainEqual(pair);
  });

  it('is not set to anything else by Compose or a Kubernetes ConfigMap', () => {
    const names = serviceEnvironment.map(([name]) => name);
    const composeServices = loadComposeFile(repoPath('docker-compose.yml')).services;
    for (const service of SERVICES) {
      const environment = environmentOf(composeServices[service]!);
      expect({ service, set: names.filter((name) => name in environment) }).toEqual({ service, set: [] });
    }
    for (const overlay of ['base', 'overlays/local', 'overlays/production']) {
      for (const configMap of renderKustomization(repoPath('k8s', overlay)).filter((o) => o.kind === 'ConfigMap')) {
        const data = (configMap.data ?? {}) as Record<string, string>;
        expect({ configMap: configMap.metadata.name, set: names.filter((name) => name in data) }).toEqual({
          configMap: configMap.metadata.name,
          set: [],
        });
      }
    }
  });
});
