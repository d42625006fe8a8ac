/**
 * .dockerignore matching as BuildKit does it: patterns are relative to the context root, `*` and `?`
 * stay within one path segment, `**` spans any number of segments, a matched directory takes its
 * contents with it, `!` re-includes, and the last matching pattern decides.
 */
interface Rule {
  negated: boolean;
  pattern: RegExp;
  source: string;
}

function toRegExp(pattern: string): RegExp {
  let regex = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === '*' && pattern[i + 1] === '*') {
      const atSegmentEnd = pattern[i + 2] === '/';
      regex += atSegmentEnd ? '(?:.*/)?' : '.*';
      i += atSegmentEnd ? 2 : 1;
    } else if (char === '*') regex += '[^/]*';
    else if (char === '?') regex += '[^/]';
    else if (char === '[') {
      const end = pattern.indexOf(']', i);
      if (end === -1) throw new Error(`unterminated character class in ${pattern}`);
      regex += `[${pattern.slice(i + 1, end).replace(/^!/, '^')}]`;
      i = end;
    } else regex += char.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${regex}$`);
}

export function parseDockerignore(text: string): Rule[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const negated = line.startsWith('!');
      const cleaned = (negated ? line.slice(1) : line).trim().replace(/^\/+/, '').replace(/\/+$/, '');
      return { negated, pattern: toRegExp(cleaned), source: line };
    });
}

/** Whether a path (relative to the context, with `/`) is left out of the build context. */
export function isIgnored(rules: Rule[], path: string): boolean {
  const segments = path.replace(/^\.\//, '').split('/');
  const candidates = segments.map((_, index) => segments.slice(0, index + 1).join('/'));
  let ignored = false;
  for (const rule of rules) {
    if (candidates.some((candidate) => rule.pattern.test(candidate))) ignored = !rule.negated;
  }
  return ignored;
}
