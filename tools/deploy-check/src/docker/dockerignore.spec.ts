import { isIgnored, parseDockerignore } from './dockerignore.js';

const rules = parseDockerignore(`
# comment
**/node_modules
**/dist
.git
*.md
docs
!docs/keep.md
apps/*/tmp?
`);

describe('isIgnored', () => {
  it.each([
    ['node_modules/x/index.js', true],
    ['apps/gateway/node_modules/x.js', true],
    ['apps/gateway/dist/main.js', true],
    ['.git/HEAD', true],
    ['README.md', true],
    ['docs/deployment.md', true],
    ['docs/keep.md', false],
    ['apps/gateway/README.md', false],
    ['apps/gateway/tmp1/x', true],
    ['apps/gateway/src/main.ts', false],
    ['package-lock.json', false],
    ['distribution/file', false],
  ])('%s → %s', (path, ignored) => {
    expect(isIgnored(rules, path)).toBe(ignored);
  });
});
