import { goodDeployment } from './fixtures.js';
import { containersOf, type JsonObject } from './objects.js';
import { schemaProblems } from './schema.js';
import { unknownFieldProblems } from './strict-fields.js';

describe('schemaProblems', () => {
  it('accepts a valid Deployment', () => {
    expect(schemaProblems(goodDeployment())).toEqual([]);
  });

  it('refuses a malformed quantity and a wrong type', () => {
    const deployment = goodDeployment();
    const container = containersOf(deployment)[0] as JsonObject;
    (container.resources as JsonObject).limits = { cpu: 'lots', memory: '128Mi' };
    expect(schemaProblems(deployment).join('\n')).toMatch(/limits\/cpu must match format "quantity"/);
    container.ports = [{ containerPort: '3000' }];
    expect(schemaProblems(deployment).join('\n')).toMatch(/containerPort must be integer/);
  });

  it('refuses a kind it has no schema for rather than skipping it', () => {
    expect(schemaProblems({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } })).toEqual([
      'Widget/w: no schema for example.com/v1 Widget',
    ]);
  });
});

describe('unknownFieldProblems', () => {
  it('accepts a Deployment that uses only API fields', () => {
    expect(unknownFieldProblems([goodDeployment()])).toEqual([]);
  });

  it('names a misspelt field deep in the pod template', () => {
    const deployment = goodDeployment();
    const container = containersOf(deployment)[0] as JsonObject;
    container.readinesProbe = container.readinessProbe;
    delete container.readinessProbe;
    const problems = unknownFieldProblems([deployment]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^Deployment\/gateway: .*'"readinesProbe"' does not exist in type 'IContainer'/);
  });

  it('names a misplaced field on a second object of another kind', () => {
    const problems = unknownFieldProblems([
      goodDeployment(),
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'gateway' },
        spec: { ports: [{ port: 80 }], runAsNonRoot: true },
      },
    ]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^Service\/gateway: .*'"runAsNonRoot"' does not exist in type 'IServiceSpec'/);
  });
});
