import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { isIgnored, parseDockerignore } from '../src/docker/dockerignore.js';
import { copyInstructions, parseDockerfile, stages } from '../src/docker/dockerfile.js';
import { pinProblem } from '../src/images.js';
import { REPO_ROOT, repoPath } from '../src/repo.js';

const instructions = parseDockerfile(readFileSync(repoPath('Dockerfile'), 'utf8'));
const buildStages = stages(instructions);
const stage = (name: string) => {
  const found = buildStages.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no stage ${name}`);
  return found;
};
const runs = (name: string) =>
  stage(name)
    .instructions.filter((instruction) => instruction.keyword === 'RUN')
    .map((instruction) => instruction.args);
const ignoreRules = parseDockerignore(readFileSync(repoPath('.dockerignore'), 'utf8'));
const trackedFiles = execFileSync('git', ['ls-files'], { cwd: REPO_ROOT, encoding: 'utf8' })
  .split('\n')
  .filter(Boolean);

describe('Dockerfile', () => {
  it('builds in stages: manifests, dependencies, build, production dependencies, runtime last', () => {
    expect(buildStages.map((candidate) => candidate.name)).toEqual([
      'manifests',
      'deps',
      'build',
      'prod-deps',
      'runtime',
    ]);
  });

  it('starts every stage from a base image pinned to an exact version, or from an earlier stage', () => {
    const earlier = new Set<string>();
    for (const candidate of buildStages) {
      if (!earlier.has(candidate.from))
        expect({ stage: candidate.name, problem: pinProblem(candidate.from, { exactVersion: true }) }).toEqual({
          stage: candidate.name,
          problem: undefined,
        });
      if (candidate.name) earlier.add(candidate.name);
    }
    expect(stage('runtime').from).toMatch(/^node:20\.\d+\.\d+-bookworm-slim$/);
  });

  it('copies only sources that exist in the repository and reach the build context', () => {
    const problems: string[] = [];
    for (const copy of copyInstructions(instructions)) {
      if (copy.flags.from !== undefined) continue;
      for (const source of copy.sources) {
        if (!existsSync(repoPath(source))) problems.push(`line ${copy.line}: ${source} does not exist`);
        else if (source !== '.' && isIgnored(ignoreRules, source))
          problems.push(`line ${copy.line}: ${source} is excluded by .dockerignore`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('copies from earlier stages only', () => {
    const names = buildStages.map((candidate) => candidate.name);
    for (const copy of copyInstructions(instructions).filter((candidate) => candidate.flags.from !== undefined)) {
      const from = String(copy.flags.from);
      const owner = buildStages.findIndex((candidate) =>
        candidate.instructions.some((instruction) => instruction.line === copy.line),
      );
      expect({ line: copy.line, from, earlier: names.slice(0, owner).includes(from) }).toEqual({
        line: copy.line,
        from,
        earlier: true,
      });
    }
  });

  it('keeps in the build context every file the build reads, and out of it what must not be there', () => {
    const needed = trackedFiles.filter(
      (file) =>
        [
          'package.json',
          'package-lock.json',
          'nx.json',
          'tsconfig.base.json',
          'prisma.config.ts',
          'eslint.config.mjs',
          'jest.preset.cjs',
        ].includes(file) ||
        /^(apps|libs)\/[^/]+\/(package\.json|tsconfig[^/]*\.json|src\/.*|tools\/.*)$/.test(file) ||
        /^(prisma|docker)\//.test(file),
    );
    expect(needed.length).toBeGreaterThan(50);
    expect(needed.filter((file) => isIgnored(ignoreRules, file))).toEqual([]);
    for (const excluded of [
      '.git/HEAD',
      'node_modules/nx/package.json',
      'apps/gateway/dist/main.js',
      'apps/payments/src/generated/prisma/client.ts',
      '.env',
      'libs/config/tsconfig.lib.tsbuildinfo',
    ]) {
      expect({ excluded, ignored: isIgnored(ignoreRules, excluded) }).toEqual({ excluded, ignored: true });
    }
  });

  it('installs from the lock file and builds with the same command as CI', () => {
    const rootScripts = (
      JSON.parse(readFileSync(repoPath('package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    expect(rootScripts.build).toBe('nx run-many -t build');
    expect(runs('deps').join('\n')).toMatch(/^npm ci\b/);
    expect(runs('build').join('\n')).toContain(`npx ${rootScripts.build} `);
    expect(runs('build').join('\n')).toContain('sh docker/collect-runtime.sh /runtime');
    expect(
      instructions.some((instruction) => instruction.keyword === 'RUN' && /npm (install|i)\b/.test(instruction.args)),
    ).toBe(false);
  });

  it('generates the Prisma client offline during the build', () => {
    const env = stage('build')
      .instructions.filter((instruction) => instruction.keyword === 'ENV')
      .map((instruction) => instruction.args)
      .join(' ');
    expect(env).toMatch(/PRISMA_SCHEMA_ENGINE_BINARY=\/bin\/true/);
  });

  it('puts only production dependencies and built output in the runtime image', () => {
    expect(runs('prod-deps').join('\n')).toMatch(/^npm ci --omit=dev .*&& node \/tmp\/prune-dev-optional\.mjs/);
    const sources = copyInstructions(stage('runtime').instructions).map(
      (copy) => `${String(copy.flags.from)}:${copy.sources.join(',')}`,
    );
    expect(sources).toEqual(['prod-deps:/app/', 'build:/runtime/']);
  });

  it('runs as an unprivileged numeric user, with a health check and a default command', () => {
    const runtime = stage('runtime').instructions;
    const users = runtime
      .filter((instruction) => instruction.keyword === 'USER')
      .map((instruction) => instruction.args);
    expect(users).toEqual(['1000:1000']);
    const userIndex = runtime.findIndex((instruction) => instruction.keyword === 'USER');
    expect(runtime.slice(userIndex).some((instruction) => ['RUN', 'COPY', 'ADD'].includes(instruction.keyword))).toBe(
      false,
    );
    expect(runtime.find((instruction) => instruction.keyword === 'HEALTHCHECK')?.args).toMatch(
      /CMD \["node", "docker\/healthcheck\.mjs"\]/,
    );
    // The node options between the two are node-options.spec's.
    const cmd = JSON.parse(runtime.find((instruction) => instruction.keyword === 'CMD')!.args) as string[];
    expect([cmd[0], cmd.at(-1)]).toEqual(['node', 'apps/gateway/dist/main.js']);
  });

  it('bakes no secret into the image', () => {
    const env = instructions
      .filter((instruction) => ['ENV', 'ARG'].includes(instruction.keyword))
      .map((instruction) => instruction.args)
      .join(' ');
    expect(env).not.toMatch(/PASSWORD|SECRET|TOKEN|DATABASE_URL|PAY_TO/i);
  });
});
