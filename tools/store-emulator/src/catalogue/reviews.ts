import type { Catalogue } from './catalogue.js';
import { CATALOGUE_NOW } from './generate.js';
import type { App } from './model.js';
import { Random } from './random.js';
import type { Storefront } from './storefronts.js';

export interface Review {
  id: number;
  userName: string;
  userId: number;
  title: string;
  content: string;
  rating: number;
  version: string;
  /** ISO 8601 with the Pacific offset, as the feed writes it. */
  updated: string;
  voteSum: number;
  voteCount: number;
}

export type FeedSort = 'mostRecent' | 'mostHelpful';

type Mood = 'good' | 'mixed' | 'bad';

const PHRASES: Record<
  Storefront['reviewLanguage'],
  { titles: Record<Mood, string[]>; texts: Record<Mood, string[]>; names: string[] }
> = {
  en: {
    titles: {
      good: ['Love it!', 'Best app ever', 'Exactly what I needed', 'Five stars', 'So useful'],
      mixed: ['Good but could be better', 'Decent', 'Needs a few fixes', 'Okay for now'],
      bad: ['Keeps crashing', 'Worst update', 'Please fix', 'Not worth it', 'Too many ads'],
    },
    texts: {
      good: [
        'I use this every day and it just works.',
        'Clean design and fast.',
        'Worth every penny, highly recommend.',
        'The latest update made it even better.',
      ],
      mixed: [
        'Some features are great, others feel unfinished.',
        'Works most of the time but syncing is slow.',
        'Would give five stars if it had a dark mode.',
      ],
      bad: [
        'Since the last update it crashes on launch.',
        'Lost all my data after the update.',
        'Ads every few seconds, unusable.',
        'Support never answered my email.',
      ],
    },
    names: ['happyuser', 'NightOwl', 'jdoe', 'Maverick', 'CoffeeLover', 'sunny_days', 'TechFan', 'GrandmaJo'],
  },
  de: {
    titles: {
      good: ['Super App', 'Sehr gut', 'Top!'],
      mixed: ['Ganz okay', 'Gut, aber...'],
      bad: ['Stürzt ständig ab', 'Enttäuschend'],
    },
    texts: {
      good: ['Ich nutze die App jeden Tag, alles funktioniert.', 'Übersichtlich und schnell.'],
      mixed: ['Manche Funktionen fehlen noch.', 'Läuft meistens, aber die Synchronisation ist langsam.'],
      bad: ['Seit dem Update startet die App nicht mehr.', 'Viel zu viel Werbung.'],
    },
    names: ['Maus123', 'Bergfreund', 'LenaK', 'Schnitzel', 'Kaffeetante'],
  },
  fr: {
    titles: {
      good: ['Génial', 'Très bonne appli', 'Parfait'],
      mixed: ['Pas mal', 'Peut mieux faire'],
      bad: ['Plante sans arrêt', 'Décevant'],
    },
    texts: {
      good: ["J'utilise l'appli tous les jours, rien à redire.", 'Simple et efficace.'],
      mixed: ['Quelques fonctions manquent encore.', 'Fonctionne bien mais un peu lent.'],
      bad: ["Depuis la mise à jour, l'appli plante au démarrage.", 'Beaucoup trop de publicités.'],
    },
    names: ['Camille75', 'Loulou', 'PierreD', 'Croissant', 'Manon_R'],
  },
  ja: {
    titles: {
      good: ['最高です', 'とても便利', '神アプリ'],
      mixed: ['まあまあ', '惜しい'],
      bad: ['落ちます', '改善してほしい'],
    },
    texts: {
      good: ['毎日使っています。とても使いやすいです。', 'シンプルで動作も軽いです。'],
      mixed: ['便利ですが、もう少し機能がほしいです。', 'たまに同期が遅いです。'],
      bad: ['アップデート後に起動しなくなりました。', '広告が多すぎます。'],
    },
    names: ['たろう', 'さくら', 'ねこ好き', 'ゆうき', 'みかん'],
  },
  pt: {
    titles: {
      good: ['Excelente', 'Muito bom', 'Perfeito'],
      mixed: ['Razoável', 'Pode melhorar'],
      bad: ['Trava muito', 'Decepcionante'],
    },
    texts: {
      good: ['Uso todos os dias e funciona muito bem.', 'Simples e rápido.'],
      mixed: ['Faltam algumas funções.', 'Funciona, mas às vezes fica lento.'],
      bad: ['Depois da atualização o app não abre.', 'Propaganda demais.'],
    },
    names: ['joaozinho', 'Mari_S', 'Carioca', 'Pedrão', 'Bia2010'],
  },
  ru: {
    titles: {
      good: ['Отлично', 'Лучшее приложение', 'Супер'],
      mixed: ['Неплохо', 'Есть недочёты'],
      bad: ['Вылетает', 'Разочарован'],
    },
    texts: {
      good: ['Пользуюсь каждый день, всё работает.', 'Удобно и быстро.'],
      mixed: ['Не хватает некоторых функций.', 'Работает, но иногда тормозит.'],
      bad: ['После обновления не запускается.', 'Слишком много рекламы.'],
    },
    names: ['Саша', 'Иван_П', 'Котик', 'Марина', 'Дмитрий77'],
  },
};

function moodOf(rating: number): Mood {
  return rating >= 4 ? 'good' : rating === 3 ? 'mixed' : 'bad';
}

/** The reviews an app has in a storefront, newest first. */
export function generateReviews(catalogue: Catalogue, app: App, front: Storefront): Review[] {
  const count = catalogue.reviewCount(app, front);
  const rng = new Random(catalogue.seed, 21, app.trackId, front.bit);
  const phrases = PHRASES[front.reviewLanguage];
  const releaseMs = Date.parse(app.releaseDate);
  const meanGapMs = Math.max(60_000, Math.min(3 * 86_400_000, (CATALOGUE_NOW - releaseMs) / Math.max(1, count)));
  const [major, minor] = app.version.split('.').map(Number);
  const reviews: Review[] = [];
  let at = CATALOGUE_NOW - Math.floor(rng.next() * 86_400_000);
  for (let i = 0; i < count; i++) {
    const base = app.baseRating || 4;
    const rating = Math.min(5, Math.max(1, Math.round(base + (rng.next() + rng.next() - 1) * 2.2)));
    const mood = moodOf(rating);
    const ageDays = (CATALOGUE_NOW - at) / 86_400_000;
    const voteCount = rng.chance(0.6) ? 0 : Math.floor(rng.next() ** 2 * 60) + 1;
    reviews.push({
      id: 10_000_000_000 + (app.index * 8 + front.bit) * 500 + i,
      userName: `${rng.pick(phrases.names)}${rng.chance(0.6) ? rng.int(1, 9999) : ''}`,
      userId: 100_000_000 + ((rng.next() * 1_900_000_000) >>> 0),
      title: rng.pick(phrases.titles[mood]),
      content: rng.sample(phrases.texts[mood], rng.int(1, 2)).join(' '),
      rating,
      version:
        ageDays < 45
          ? app.version
          : `${major}.${Math.max(0, (minor || 0) - Math.floor(ageDays / 45))}${ageDays < 400 ? '.0' : ''}`,
      updated: pacificTime(at),
      voteSum: voteCount === 0 ? 0 : rng.int(0, voteCount),
      voteCount,
    });
    at -= Math.floor(rng.next() * 2 * meanGapMs);
  }
  return reviews;
}

export function sortReviews(reviews: Review[], sort: FeedSort): Review[] {
  if (sort === 'mostRecent') return reviews;
  return [...reviews].sort((a, b) => b.voteSum - a.voteSum || b.voteCount - a.voteCount || a.id - b.id);
}

/** "2025-09-28T14:03:11-07:00": the feed writes Cupertino local time. */
function pacificTime(ms: number): string {
  return `${new Date(ms - 7 * 3_600_000).toISOString().slice(0, 19)}-07:00`;
}
