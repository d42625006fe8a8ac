import type { Genre } from './genres.js';
import type { Random } from './random.js';
import type { Script } from './vocabulary.js';

/** URL slug as apps.apple.com builds it: lower case, letters of any script kept, the rest dashes. */
export function slugify(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
  return slug || 'app';
}

/** ASCII letters and digits only, for bundle identifiers. */
export function asciiWord(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '');
}

const LATIN_FEATURES = [
  'works offline',
  'dark mode',
  'home screen widgets',
  'iCloud sync',
  'Apple Watch support',
  'no ads in the premium version',
  'daily challenges',
  'share with family',
  'smart reminders',
  'privacy first: your data stays on your device',
];

export function describe(name: string, genre: Genre, script: Script, rng: Random): string {
  switch (script) {
    case 'japanese':
      return `${name}は、毎日をもっと便利にするアプリです。シンプルな操作で、だれでもすぐに使えます。オフラインでも利用できます。`;
    case 'cyrillic':
      return `${name} — удобное приложение на каждый день. Простой интерфейс, работа без интернета и регулярные обновления.`;
    case 'arabic':
      return `${name} تطبيق سهل الاستخدام لكل يوم. واجهة بسيطة وتحديثات منتظمة ويعمل دون اتصال بالإنترنت.`;
    default: {
      const features = rng.sample(LATIN_FEATURES, 3);
      return `${name} lets you ${genre.activity}. Loved by players and users in over 100 countries.\n\nFeatures:\n• ${features.join('\n• ')}`;
    }
  }
}

export function releaseNotesFor(script: Script): string {
  switch (script) {
    case 'japanese':
      return '軽微な不具合を修正しました。';
    case 'cyrillic':
      return 'Исправлены ошибки и улучшена производительность.';
    case 'arabic':
      return 'إصلاحات للأخطاء وتحسينات في الأداء.';
    default:
      return 'Bug fixes and performance improvements.';
  }
}

/** An ISO date between two instants, at Apple's usual 07:00Z release time. */
export function isoDateBetween(rng: Random, fromMs: number, toMs: number): string {
  const day = new Date(fromMs + Math.floor(rng.next() * (toMs - fromMs)));
  return `${day.toISOString().slice(0, 10)}T07:00:00Z`;
}
