import { hash } from '../catalogue/random.js';

function hex(...parts: number[]): string {
  return hash(...parts)
    .toString(16)
    .padStart(8, '0');
}

/** An mzstatic-style image path, stable per owner id. */
export function imagePath(ownerId: number, kind: number): string {
  const a = hex(ownerId, kind, 1);
  const b = hex(ownerId, kind, 2);
  const c = hex(ownerId, kind, 3);
  return `https://is1-ssl.mzstatic.com/image/thumb/Purple${(hash(ownerId, kind) % 200) + 1}/v4/${a.slice(0, 2)}/${a.slice(2, 4)}/${a.slice(4, 6)}/${a}-${b.slice(0, 4)}-${b.slice(4)}-${c.slice(0, 4)}-${c}${a.slice(0, 4)}`;
}

export function iconUrl(ownerId: number, size: number): string {
  return `${imagePath(ownerId, 0)}/AppIcon-0-0-1x_U007emarketing-0-7-0-85-220.png/${size}x${size}bb.jpg`;
}

export function screenshotUrls(ownerId: number, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${imagePath(ownerId, i + 1)}/screenshot_${i + 1}.png/392x696bb.jpg`);
}

/** Template form used by the web catalogue: the client fills {w}, {h} and {f}. */
export function artworkTemplate(ownerId: number): { width: number; height: number; url: string; bgColor: string } {
  return {
    width: 1024,
    height: 1024,
    url: `${imagePath(ownerId, 0)}/AppIcon-0-0-1x_U007emarketing-0-7-0-85-220.png/{w}x{h}{c}.{f}`,
    bgColor: hex(ownerId, 9).slice(0, 6),
  };
}
