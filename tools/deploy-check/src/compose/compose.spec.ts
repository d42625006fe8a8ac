import { composeSchemaProblems, environmentOf, publishedPorts } from './compose.js';

describe('composeSchemaProblems', () => {
  it('accepts a small valid file', () => {
    expect(
      composeSchemaProblems({
        name: 'x',
        services: {
          web: { image: 'web:1.0.0', ports: ['127.0.0.1:80:80'], depends_on: { db: { condition: 'service_healthy' } } },
        },
      }),
    ).toEqual([]);
  });

  it('refuses an unknown key and a bad depends_on condition', () => {
    const problems = composeSchemaProblems({
      services: { web: { image: 'web:1.0.0', healtcheck: {}, depends_on: { db: { condition: 'service_ready' } } } },
    });
    expect(problems.join('\n')).toMatch(/must NOT have additional properties.*healtcheck/);
    expect(problems.join('\n')).toMatch(/condition must be equal to one of the allowed values/);
  });
});

describe('publishedPorts', () => {
  it('reads the short forms', () => {
    expect(
      publishedPorts({ ports: ['3000:3000', '127.0.0.1:5432:5432', '[::1]:6379:6379', '9000/udp', 8080] }),
    ).toEqual([
      { hostIp: undefined, published: '3000', target: '3000' },
      { hostIp: '127.0.0.1', published: '5432', target: '5432' },
      { hostIp: '::1', published: '6379', target: '6379' },
      { hostIp: undefined, target: '9000' },
      { hostIp: undefined, target: '8080' },
    ]);
  });

  it('reads the long form', () => {
    expect(publishedPorts({ ports: [{ target: 80, published: 8080, host_ip: '127.0.0.1' }] })).toEqual([
      { hostIp: '127.0.0.1', published: '8080', target: '80' },
    ]);
  });
});

describe('environmentOf', () => {
  it('reads both forms', () => {
    expect(environmentOf({ environment: ['A=1', 'B=x=y'] })).toEqual({ A: '1', B: 'x=y' });
    expect(environmentOf({ environment: { A: 1, B: null } })).toEqual({ A: '1', B: '' });
  });
});
