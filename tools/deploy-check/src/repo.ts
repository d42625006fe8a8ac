import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, from src/ (tests) alike. */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');

export function repoPath(...parts: string[]): string {
  return join(REPO_ROOT, ...parts);
}
