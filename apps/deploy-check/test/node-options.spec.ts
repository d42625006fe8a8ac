import { readFileSync } from 'node:fs';
import { parseDockerfile, stages } from '../src/docker/dockerfile.js';
import { renderKustomization } from '../src/kustomize/kustomize.js';
import { repoPath } from '../src/repo.js';

/**
 * The services' node options (a smaller young generation: docs/benchmarks.md) are set in
 * package.json's config.serviceNodeOptions, which `npm start` and the bench read. The image and the
 * Kubernetes ConfigMaps cannot read it, so they carry copies; NODE_OPTIONS set in a ConfigMap replaces
 * the image's, so each must repeat them.
 */
const serviceNodeOptions: string[] = (JSON.parse(readFileSync(repoPath('package.json'), 'utf8')).config.serviceNodeOptions as string).split(/\s+/).filter(Boolean);

function runtimeEnv(): Map<string, string> {
  const runtime = stages(parseDockerfile(readFileSync(repoPath('Dockerfile'), 'utf8'))).find((stage) => stage.name === 'runtime');
  const env = new Map<string, string>();
  for (const instruction of runtime?.instructions ?? []) {
    if (instruction.keyword !== 'ENV') continue;
    for (const [, name, value] of instruction.args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=(\S*)/g)) env.set(name, value);
  }
  return env;
}

describe('service node options', () => {
  it('are set in package.json', () => {
    expect(serviceNodeOptions.length).toBeGreaterThan(0);
    for (const option of serviceNodeOptions) expect(option).toMatch(/^--[a-z-]+(=\S+)?$/);
  });

  it("are the runtime image's NODE_OPTIONS", () => {
    expect(runtimeEnv().get('NODE_OPTIONS')?.split(' ')).toEqual(serviceNodeOptions);
  });

  it.each(['base', 'overlays/local', 'overlays/production'])('are kept by every ConfigMap of %s that sets NODE_OPTIONS', (overlay) => {
    const configMaps = renderKustomization(repoPath('k8s', overlay)).filter((object) => object.kind === 'ConfigMap');
    const withNodeOptions = configMaps.filter((configMap) => typeof (configMap.data as Record<string, unknown> | undefined)?.NODE_OPTIONS === 'string');
    expect(withNodeOptions.map((configMap) => configMap.metadata.name).sort()).toEqual(['catalog-config', 'gateway-config', 'payments-config']);
    for (const configMap of withNodeOptions) {
      const options = ((configMap.data as Record<string, string>).NODE_OPTIONS).split(/\s+/);
      expect({ configMap: configMap.metadata.name, missing: serviceNodeOptions.filter((option) => !options.includes(option)) }).toEqual({ configMap: configMap.metadata.name, missing: [] });
    }
  });
});
