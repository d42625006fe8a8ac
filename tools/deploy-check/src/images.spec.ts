import { parseImage, pinProblem } from './images.js';

describe('parseImage', () => {
  it.each([
    ['node:20.19.5-bookworm-slim', { name: 'node', tag: '20.19.5-bookworm-slim' }],
    [
      'registry.example.com:5000/appcat/appcat:1.0.0',
      { name: 'registry.example.com:5000/appcat/appcat', tag: '1.0.0' },
    ],
    ['registry.example.com:5000/appcat', { name: 'registry.example.com:5000/appcat' }],
    [`appcat:1.0.0@sha256:${'f'.repeat(64)}`, { name: 'appcat', tag: '1.0.0', digest: `sha256:${'f'.repeat(64)}` }],
  ])('reads %s', (reference, expected) => {
    expect(parseImage(reference)).toEqual(expected);
  });
});

describe('pinProblem', () => {
  it('accepts a version tag and a digest', () => {
    expect(pinProblem('postgres:16.4-alpine', { exactVersion: true })).toBeUndefined();
    expect(pinProblem(`node@sha256:${'0'.repeat(64)}`, { exactVersion: true })).toBeUndefined();
  });

  it.each(['node', 'node:latest', 'node@sha256:abc'])('refuses %s', (reference) => {
    expect(pinProblem(reference)).toBeDefined();
  });

  it('refuses a moving major tag when an exact version is wanted', () => {
    expect(pinProblem('node:20')).toBeUndefined();
    expect(pinProblem('node:20', { exactVersion: true })).toMatch(/not an exact version/);
    expect(pinProblem('node:20-bookworm-slim', { exactVersion: true })).toMatch(/not an exact version/);
  });
});
