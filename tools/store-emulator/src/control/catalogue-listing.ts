import type { Catalogue } from '../catalogue/catalogue.js';
import { STOREFRONTS, storefrontsIn } from '../catalogue/storefronts.js';

/** What exists in the generated catalogue, for load generators that want ids that resolve. */
export interface CatalogueListing {
  storefronts: string[];
  /** Most rated first, as a popularity ranking. */
  apps: { trackId: number; bundleId: string; storefronts: string[]; developerId: number }[];
  developers: number[];
  bundles: { id: number; storefronts: string[] }[];
  /** Words of app names, most common first: search terms that find something. */
  terms: string[];
}

export function listCatalogue(catalogue: Catalogue): CatalogueListing {
  const codes = (mask: number) => storefrontsIn(mask).map((s) => s.code);
  const apps = [...catalogue.apps].sort((a, b) => b.ratingCount - a.ratingCount || a.index - b.index);
  const words = new Map<string, number>();
  for (const app of catalogue.apps) {
    for (const word of app.name.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
      if (word.length >= 3) words.set(word, (words.get(word) ?? 0) + 1);
    }
  }
  return {
    storefronts: STOREFRONTS.map((s) => s.code),
    apps: apps.map((a) => ({
      trackId: a.trackId,
      bundleId: a.bundleId,
      storefronts: codes(a.storefronts),
      developerId: a.developer.id,
    })),
    developers: catalogue.developers.map((d) => d.id),
    bundles: catalogue.bundles.map((b) => ({ id: b.id, storefronts: codes(b.storefronts) })),
    terms: [...words.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([w]) => w),
  };
}
