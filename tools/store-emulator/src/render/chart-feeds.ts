import type { Catalogue } from '../catalogue/catalogue.js';
import { CATALOGUE_NOW } from '../catalogue/generate.js';
import type { App } from '../catalogue/model.js';
import type { ChartKind } from '../catalogue/store-facts.js';
import { formatPrice, type Storefront } from '../catalogue/storefronts.js';
import { iconUrl } from './artwork.js';
import { developerUrl } from './itunes-records.js';

/*
 * The two chart feeds in Apple's shapes: the iTunes RSS feed (`/{cc}/rss/topfreeapplications/…/json`,
 * every value as text under `label`, as the reviews feed writes it) and the marketing tools' RSS v2
 * (`/api/v2/{cc}/apps/top-free/{n}/apps.json`, plain values, no price, empty `genres`).
 */

export const LEGACY_FEEDS: Readonly<Record<string, { kind: ChartKind; title: string }>> = {
  topfreeapplications: { kind: 'free', title: 'Top Free Apps' },
  toppaidapplications: { kind: 'paid', title: 'Top Paid Apps' },
  topgrossingapplications: { kind: 'grossing', title: 'Top Grossing Apps' },
};

export const MARKETING_FEEDS: Readonly<Record<string, { kind: ChartKind; title: string }>> = {
  'top-free': { kind: 'free', title: 'Top Free Apps' },
  'top-paid': { kind: 'paid', title: 'Top Paid Apps' },
};

const label = (value: string) => ({ label: value });
const updated = () => `${new Date(CATALOGUE_NOW - 3_600_000).toISOString().slice(0, 19)}-07:00`;

function appUrl(app: App, front: Storefront): string {
  return `https://apps.apple.com/${front.code}/app/${encodeURIComponent(app.slug)}/id${app.trackId}?uo=2`;
}

function legacyEntry(catalogue: Catalogue, app: App, front: Storefront): Record<string, unknown> {
  const price = catalogue.price(app.priceTier, front);
  const genre = app.genre.parent ?? app.genre;
  const released = `${app.releaseDate.slice(0, 19)}-07:00`;
  return {
    'im:name': label(app.name),
    'im:image': [53, 75, 100].map((size) => ({
      label: iconUrl(app.trackId, size),
      attributes: { height: String(size) },
    })),
    summary: label(app.description),
    'im:price': {
      label: price === 0 ? 'Get' : formatPrice(front, price),
      attributes: { amount: price.toFixed(5), currency: front.currency },
    },
    'im:contentType': { attributes: { term: 'Application', label: 'Application' } },
    rights: label(`© ${app.developer.name}`),
    title: label(`${app.name} - ${app.developer.name}`),
    link: { attributes: { rel: 'alternate', type: 'text/html', href: appUrl(app, front) } },
    id: { label: appUrl(app, front), attributes: { 'im:id': String(app.trackId), 'im:bundleId': app.bundleId } },
    'im:artist': {
      label: app.developer.name,
      attributes: { href: developerUrl(app.developer, front).replace('uo=4', 'uo=2') },
    },
    category: {
      attributes: {
        'im:id': String(genre.id),
        term: genre.name,
        scheme: `https://apps.apple.com/${front.code}/genre/ios-${genre.id}?uo=2`,
        label: genre.name,
      },
    },
    'im:releaseDate': {
      label: released,
      attributes: {
        label: new Date(app.releaseDate).toLocaleDateString('en-US', { dateStyle: 'long', timeZone: 'UTC' }),
      },
    },
  };
}

/** `feed.entry`: an array, one object for a chart of one, absent for an empty chart (as the reviews feed). */
export function legacyChartJson(
  catalogue: Catalogue,
  apps: App[],
  front: Storefront | undefined,
  self: string,
  title: string,
): unknown {
  const entries = front ? apps.map((app) => legacyEntry(catalogue, app, front)) : [];
  const feed: Record<string, unknown> = {
    author: { name: label('iTunes Store'), uri: label('http://www.apple.com/itunes/') },
    ...(entries.length === 0 ? {} : { entry: entries.length === 1 ? entries[0] : entries }),
    updated: label(updated()),
    rights: label('Copyright 2008 Apple Inc.'),
    title: label(`iTunes Store: ${title}`),
    icon: label('http://itunes.apple.com/favicon.ico'),
    link: [
      {
        attributes: {
          rel: 'alternate',
          type: 'text/html',
          href: 'https://apps.apple.com/WebObjects/MZStore.woa/wa/viewTop?cc=us&id=1',
        },
      },
      { attributes: { rel: 'self', href: self } },
    ],
    id: label(self),
  };
  return { feed };
}

export function marketingChartJson(
  catalogue: Catalogue,
  apps: App[],
  front: Storefront,
  self: string,
  title: string,
): unknown {
  return {
    feed: {
      title,
      id: self,
      author: { name: 'Apple', url: 'https://www.apple.com/' },
      links: [{ self }],
      copyright: 'Copyright © 2025 Apple Inc. All rights reserved.',
      country: front.code,
      icon: 'https://www.apple.com/favicon.ico',
      updated: new Date(CATALOGUE_NOW - 3_600_000).toUTCString().replace('GMT', '+0000'),
      results: apps.map((app) => ({
        artistName: app.developer.name,
        id: String(app.trackId),
        name: app.name,
        releaseDate: app.releaseDate.slice(0, 10),
        kind: 'apps',
        artistId: String(app.developer.id),
        artistUrl: `https://apps.apple.com/${front.code}/developer/${encodeURIComponent(app.developer.slug)}/id${app.developer.id}`,
        artworkUrl100: iconUrl(app.trackId, 100),
        genres: [],
        url: `https://apps.apple.com/${front.code}/app/${encodeURIComponent(app.slug)}/id${app.trackId}`,
      })),
    },
  };
}
