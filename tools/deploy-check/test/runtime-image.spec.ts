import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadComposeFile } from '../src/compose/compose.js';
import { parseDockerfile } from '../src/docker/dockerfile.js';
import { renderKustomization } from '../src/kustomize/kustomize.js';
import { asK8sObject, containersOf } from '../src/kubernetes/objects.js';
import { REPO_ROOT, repoPath } from '../src/repo.js';
import { readYamlDocuments } from '../src/yaml-documents.js';

/**
 * What the runtime image holds is what docker/collect-runtime.sh gathers after the build; this runs
 * the script on the built workspace and checks every command that Compose, Kubernetes and the
 * Dockerfile start exists there.
 */

/** Apps this package depends on, so Nx builds them before these tests run. */
const BUILT_BEFORE_TESTS = Object.keys(
  (
    JSON.parse(readFileSync(repoPath('tools/deploy-check/package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    }
  ).devDependencies,
)
  .filter((name) => name.startsWith('@appcat/'))
  .map((name) => name.slice('@appcat/'.length));

function commands(): { where: string; argv: string[] }[] {
  const found: { where: string; argv: string[] }[] = [];
  for (const [name, service] of Object.entries(loadComposeFile(repoPath('docker-compose.yml')).services)) {
    if (Array.isArray(service.command)) found.push({ where: `compose ${name}`, argv: service.command });
    const test = service.healthcheck?.test;
    if (Array.isArray(test) && test[0] === 'CMD')
      found.push({ where: `compose ${name} healthcheck`, argv: test.slice(1) as string[] });
  }
  const objects = [
    ...['base', 'overlays/local', 'overlays/production'].flatMap((overlay) =>
      renderKustomization(repoPath('k8s', overlay)),
    ),
    ...readdirSync(repoPath('k8s/tools')).flatMap((file) =>
      readYamlDocuments(repoPath('k8s/tools', file)).map((document) => asK8sObject(document, file)),
    ),
  ];
  for (const object of objects) {
    for (const container of containersOf(object)) {
      if (container.command)
        found.push({ where: `${object.kind}/${object.metadata.name} ${container.name}`, argv: container.command });
      for (const probe of [container.readinessProbe, container.livenessProbe]) {
        if (probe?.exec)
          found.push({ where: `${object.kind}/${object.metadata.name} probe`, argv: probe.exec.command });
      }
    }
  }
  for (const instruction of parseDockerfile(readFileSync(repoPath('Dockerfile'), 'utf8'))) {
    if (instruction.keyword === 'CMD')
      found.push({ where: 'Dockerfile CMD', argv: JSON.parse(instruction.args) as string[] });
    if (instruction.keyword === 'HEALTHCHECK')
      found.push({
        where: 'Dockerfile HEALTHCHECK',
        argv: JSON.parse(instruction.args.slice(instruction.args.indexOf('CMD ') + 4)) as string[],
      });
  }
  return found.filter(({ argv }) => argv[0] === 'node');
}

let runtime: string;

beforeAll(() => {
  runtime = mkdtempSync(join(tmpdir(), 'appcat-runtime-'));
  execFileSync('sh', ['docker/collect-runtime.sh', runtime], { cwd: REPO_ROOT });
});

afterAll(() => rmSync(runtime, { recursive: true, force: true }));

describe('the runtime image contents (docker/collect-runtime.sh)', () => {
  it('holds the entry point of every node command the deployment files run', () => {
    const all = commands();
    expect(all.length).toBeGreaterThan(20);
    const problems: string[] = [];
    for (const { where, argv } of all) {
      // The script is the first argument after node's own options (the services' start with them).
      const script = argv.slice(1).find((arg) => !arg.startsWith('-')) ?? '';
      const app = /^apps\/([^/]+)\/dist\/(.+)\.js$/.exec(script);
      if (app && !BUILT_BEFORE_TESTS.includes(app[1])) {
        problems.push(
          `${where}: add @appcat/${app[1]} to this package's devDependencies, so Nx builds it before these tests`,
        );
      } else if (!existsSync(join(runtime, script))) {
        problems.push(`${where}: ${script} is not in the image`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('holds every workspace package.json, so the workspace links in node_modules resolve', () => {
    const lock = JSON.parse(readFileSync(repoPath('package-lock.json'), 'utf8')) as {
      packages: Record<string, { link?: boolean; resolved?: string }>;
    };
    const workspaces = Object.values(lock.packages)
      .filter((entry) => entry.link && entry.resolved)
      .map((entry) => entry.resolved as string)
      .filter((path) => existsSync(repoPath(path, 'package.json')));
    expect(workspaces.length).toBeGreaterThan(8);
    expect(workspaces.filter((path) => !existsSync(join(runtime, path, 'package.json')))).toEqual([]);
  });

  it('holds the migrations where the migrate command looks for them, and no sources or tests', () => {
    const migrations = readdirSync(join(runtime, 'prisma/migrations'), { withFileTypes: true }).filter((entry) =>
      entry.isDirectory(),
    );
    expect(migrations.length).toBeGreaterThan(0);
    for (const migration of migrations)
      expect(existsSync(join(runtime, 'prisma/migrations', migration.name, 'migration.sql'))).toBe(true);
    const projects = ['apps', 'libs'].flatMap((dir) =>
      readdirSync(join(runtime, dir)).map((name) => join(runtime, dir, name)),
    );
    expect(
      projects.flatMap((project) => readdirSync(project)).filter((entry) => !['package.json', 'dist'].includes(entry)),
    ).toEqual([]);
    expect(existsSync(join(runtime, 'node_modules'))).toBe(false);
  });

  it('starts the migrate and admin commands from the collected files', () => {
    symlinkSync(repoPath('node_modules'), join(runtime, 'node_modules'));
    const migrateHelp = execFileSync('node', [join(runtime, 'apps/payments/dist/migrate/cli.js'), '--help'], {
      encoding: 'utf8',
    });
    expect(migrateHelp).toContain('usage: node apps/payments/dist/migrate/cli.js');
    const adminHelp = execFileSync('node', [join(runtime, 'apps/admin/dist/main.js'), '--help'], { encoding: 'utf8' });
    expect(adminHelp).toMatch(/revoke/);
  });
});
