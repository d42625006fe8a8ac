import { patchObject, strategicMerge } from './strategic-merge.js';

describe('strategicMerge', () => {
  it('merges maps key by key and deletes a key patched to null', () => {
    expect(strategicMerge({ data: { A: '1', B: '2', C: '3' } }, { data: { B: 'two', C: null, D: '4' } })).toEqual({
      data: { A: '1', B: 'two', D: '4' },
    });
  });

  it('merges containers by name and their env by name, keeping the rest', () => {
    const target = {
      containers: [
        {
          name: 'a',
          image: 'x:1',
          env: [
            { name: 'ONE', value: '1' },
            { name: 'TWO', value: '2' },
          ],
        },
        { name: 'b', image: 'y:1' },
      ],
    };
    const patch = {
      containers: [
        {
          name: 'a',
          env: [
            { name: 'TWO', value: 'two' },
            { name: 'THREE', value: '3' },
          ],
        },
      ],
    };
    expect(strategicMerge(target, patch)).toEqual({
      containers: [
        {
          name: 'a',
          image: 'x:1',
          env: [
            { name: 'ONE', value: '1' },
            { name: 'TWO', value: 'two' },
            { name: 'THREE', value: '3' },
          ],
        },
        { name: 'b', image: 'y:1' },
      ],
    });
  });

  it('replaces lists without a merge key whole, as envFrom and command are', () => {
    const target = { envFrom: [{ configMapRef: { name: 'a' } }], command: ['node', 'a.js'] };
    expect(strategicMerge(target, { envFrom: [{ secretRef: { name: 's' } }], command: ['node', 'b.js'] })).toEqual({
      envFrom: [{ secretRef: { name: 's' } }],
      command: ['node', 'b.js'],
    });
  });

  it('merges a Service port on port and a container port on containerPort', () => {
    const service = { kind: 'Service', spec: { ports: [{ port: 80, targetPort: 'http' }] } };
    expect(patchObject(service, { spec: { ports: [{ port: 80, nodePort: 30080 }] } })).toEqual({
      kind: 'Service',
      spec: { ports: [{ port: 80, targetPort: 'http', nodePort: 30080 }] },
    });
  });

  it('refuses $patch directives instead of ignoring them', () => {
    expect(() => strategicMerge({ a: 1 }, { $patch: 'replace' })).toThrow('$patch');
  });

  it('refuses a list element without its merge key', () => {
    expect(() => strategicMerge({ containers: [{ name: 'a' }] }, { containers: [{ image: 'x:1' }] })).toThrow(
      'merge key "name"',
    );
  });
});
