import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderKustomization } from './kustomize.js';

let root: string;

function write(path: string, text: string): void {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), text);
}

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: { app: web }
  template:
    metadata:
      labels: { app: web }
    spec:
      containers:
        - name: web
          image: web:1.0.0
          env:
            - { name: MODE, value: base }
---
apiVersion: v1
kind: Namespace
metadata:
  name: shop
`;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'kustomize-'));
  write('base/app.yaml', deployment);
  write(
    'base/kustomization.yaml',
    'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [app.yaml]\n',
  );
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('renderKustomization', () => {
  it('applies patches, then namespace, labels and images, in that order', () => {
    write(
      'prod/patch.yaml',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n        - name: web\n          env:\n            - { name: MODE, value: prod }\n',
    );
    write(
      'prod/kustomization.yaml',
      [
        'apiVersion: kustomize.config.k8s.io/v1beta1',
        'kind: Kustomization',
        'namespace: shop',
        'resources: [../base]',
        'labels:',
        '  - pairs: { team: web }',
        '    includeTemplates: true',
        'images:',
        '  - { name: web, newName: registry.example.com/web, newTag: "2.0.0" }',
        'patches:',
        '  - path: patch.yaml',
      ].join('\n'),
    );
    const [web, namespace] = renderKustomization(join(root, 'prod'));
    expect(web.metadata).toEqual({ name: 'web', namespace: 'shop', labels: { team: 'web' } });
    const template = (
      web.spec as { template: { metadata: { labels: object }; spec: { containers: { image: string; env: object }[] } } }
    ).template;
    expect(template.metadata.labels).toEqual({ app: 'web', team: 'web' });
    expect(template.spec.containers[0].image).toBe('registry.example.com/web:2.0.0');
    expect(template.spec.containers[0].env).toEqual([{ name: 'MODE', value: 'prod' }]);
    expect(namespace.metadata).toEqual({ name: 'shop', labels: { team: 'web' } });
  });

  it("adds a component's resources after the kustomization's own, then applies its patches over both", () => {
    write('extra/api.yaml', deployment.replace(/web/g, 'api').split('---')[0]);
    write(
      'extra/patch.yaml',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n        - name: web\n          env:\n            - { name: MODE, value: with-api }\n',
    );
    write(
      'extra/kustomization.yaml',
      'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources: [api.yaml]\npatches:\n  - path: patch.yaml\n',
    );
    write(
      'prod/kustomization.yaml',
      'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [../base]\ncomponents: [../extra]\nnamespace: shop\n',
    );
    const objects = renderKustomization(join(root, 'prod'));
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}/${o.metadata.namespace}`)).toEqual([
      'Deployment/web/shop',
      'Namespace/shop/undefined',
      'Deployment/api/shop',
    ]);
    expect(JSON.stringify(objects[0])).toContain('with-api');
    write('extra/kustomization.yaml', 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n');
    expect(() => renderKustomization(join(root, 'prod'))).toThrow('kind must be Component');
  });

  it('refuses a field it does not implement', () => {
    write(
      'prod/kustomization.yaml',
      'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [../base]\nnamePrefix: prod-\n',
    );
    expect(() => renderKustomization(join(root, 'prod'))).toThrow('"namePrefix" is not supported');
  });

  it('refuses a patch that matches nothing', () => {
    write('prod/patch.yaml', 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\nspec:\n  paused: true\n');
    write(
      'prod/kustomization.yaml',
      'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [../base]\npatches:\n  - path: patch.yaml\n',
    );
    expect(() => renderKustomization(join(root, 'prod'))).toThrow('Deployment/api matches no resource');
  });

  it('refuses a patch file holding several patches, as kustomize before v5.2.1 does', () => {
    write(
      'prod/patch.yaml',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  paused: true\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n',
    );
    write(
      'prod/kustomization.yaml',
      'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [../base]\npatches:\n  - path: patch.yaml\n',
    );
    expect(() => renderKustomization(join(root, 'prod'))).toThrow('exactly one patch, found 2');
  });

  it('applies a patch with a target to every match, whatever the patch names', () => {
    write('base/more.yaml', deployment.replace(/web/g, 'api').split('---')[0]);
    write(
      'base/kustomization.yaml',
      'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [app.yaml, more.yaml]\n',
    );
    write(
      'prod/patch.yaml',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: every-deployment\nspec:\n  paused: true\n',
    );
    write(
      'prod/kustomization.yaml',
      'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [../base]\npatches:\n  - path: patch.yaml\n    target:\n      kind: Deployment\n',
    );
    const deployments = renderKustomization(join(root, 'prod')).filter((object) => object.kind === 'Deployment');
    expect(deployments.map((object) => [object.metadata.name, (object.spec as { paused?: boolean }).paused])).toEqual([
      ['web', true],
      ['api', true],
    ]);
  });

  it('refuses a resource defined twice', () => {
    write(
      'prod/kustomization.yaml',
      'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [../base, ../base/app.yaml]\n',
    );
    expect(() => renderKustomization(join(root, 'prod'))).toThrow('defined twice');
  });

  it('sets a digest through images', () => {
    const digest = `sha256:${'0'.repeat(64)}`;
    write(
      'prod/kustomization.yaml',
      `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [../base]\nimages:\n  - { name: web, digest: "${digest}" }\n`,
    );
    const [web] = renderKustomization(join(root, 'prod'));
    expect(JSON.stringify(web)).toContain(`"image":"web:1.0.0@${digest}"`);
  });
});
