import { copyInstructions, parseDockerfile, stages } from './dockerfile.js';

const DOCKERFILE = `# syntax=docker/dockerfile:1
ARG BASE=node:20.19.5-bookworm-slim
FROM \${BASE} AS deps
WORKDIR /app
# a comment between instructions
COPY package.json package-lock.json ./
RUN npm ci \\
 && echo done

FROM deps AS build
COPY --chown=1000:1000 ["src dir", "/app/src"]
FROM \${BASE}
COPY --from=build /app/dist ./dist
`;

describe('parseDockerfile', () => {
  it('joins continued lines and drops comments', () => {
    const instructions = parseDockerfile(DOCKERFILE);
    expect(instructions.map((instruction) => instruction.keyword)).toEqual([
      'ARG',
      'FROM',
      'WORKDIR',
      'COPY',
      'RUN',
      'FROM',
      'COPY',
      'FROM',
      'COPY',
    ]);
    expect(instructions[4]).toEqual({ keyword: 'RUN', args: 'npm ci && echo done', line: 7 });
  });

  it('reads stages with ARG defaults substituted', () => {
    expect(stages(parseDockerfile(DOCKERFILE)).map(({ name, from }) => ({ name, from }))).toEqual([
      { name: 'deps', from: 'node:20.19.5-bookworm-slim' },
      { name: 'build', from: 'deps' },
      { name: undefined, from: 'node:20.19.5-bookworm-slim' },
    ]);
  });

  it('reads COPY flags, sources and destination in both forms', () => {
    expect(copyInstructions(parseDockerfile(DOCKERFILE))).toEqual([
      { line: 6, flags: {}, sources: ['package.json', 'package-lock.json'], destination: './' },
      { line: 11, flags: { chown: '1000:1000' }, sources: ['src dir'], destination: '/app/src' },
      { line: 13, flags: { from: 'build' }, sources: ['/app/dist'], destination: './dist' },
    ]);
  });

  it('refuses a file that ends inside a continued line', () => {
    expect(() => parseDockerfile('FROM node:20.19.5\nRUN echo \\\n')).toThrow('continued line');
  });
});
