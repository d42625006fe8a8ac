import type { Catalogue } from '../catalogue/catalogue.js';
import type { App, Bundle, Developer } from '../catalogue/model.js';
import type { Review } from '../catalogue/reviews.js';
import { formatPrice, soldIn, type Storefront } from '../catalogue/storefronts.js';
import { privacyDetails, ratingHistogram, versionHistory } from '../catalogue/store-facts.js';
import { artworkTemplate, screenshotUrls } from './artwork.js';

/**
 * Resources of the web catalogue (amp-api, JSON:API): `{id, type, href, attributes, relationships}`.
 * Related resources appear as identifiers (`{id, type, href}`) unless the request includes them.
 */

export interface ResourceIdentifier {
  id: string;
  type: string;
  href: string;
}

export type Resource = ResourceIdentifier & {
  attributes?: Record<string, unknown>;
  relationships?: Record<string, unknown>;
};

function appHref(front: Storefront, app: App): string {
  return `/v1/catalog/${front.code}/apps/${app.trackId}`;
}

function developerRelationship(front: Storefront, developer: Developer) {
  return {
    href: `/v1/catalog/${front.code}/apps/${developer.apps[0]?.trackId ?? 0}/developer`,
    data: [
      { id: String(developer.id), type: 'developers', href: `/v1/catalog/${front.code}/developers/${developer.id}` },
    ],
  };
}

const ADVISORY_RANK: Record<string, number> = { '4+': 1, '9+': 2, '12+': 3, '17+': 4 };

function offer(catalogue: Catalogue, tier: number, front: Storefront, type: 'get' | 'buy') {
  const price = catalogue.price(tier, front);
  return {
    type: price === 0 ? 'get' : type,
    price,
    priceFormatted: formatPrice(front, price),
    currencyCode: front.currency,
    assets: [],
  };
}

export function appIdentifier(front: Storefront, app: App): ResourceIdentifier {
  return { id: String(app.trackId), type: 'apps', href: appHref(front, app) };
}

/**
 * `include.similar`: add the customers-also-bought relationship, at most that many apps. `extend`
 * adds attributes left out by default (`versionHistory` in full, `privacyDetails`); `fields` keeps
 * only the attributes it names, as a sparse fieldset does.
 */
export function appResource(
  catalogue: Catalogue,
  app: App,
  front: Storefront,
  include: { similar?: number; extend?: readonly string[]; fields?: readonly string[] } = {},
): Resource {
  const extend = new Set([...(include.extend ?? []), ...(include.fields ?? [])]);
  const rating = catalogue.rating(app, front);
  const resource: Resource = {
    ...appIdentifier(front, app),
    attributes: {
      name: app.name,
      artistName: app.developer.name,
      url: `https://apps.apple.com/${front.code}/app/${encodeURIComponent(app.slug)}/id${app.trackId}`,
      genreDisplayName: app.genre.name,
      deviceFamilies: ['iphone', 'ipad', 'ipod'],
      releaseDate: app.releaseDate.slice(0, 10),
      isFirstParty: false,
      userRating: {
        value: rating.average,
        ratingCount: rating.count,
        ratingCountList: ratingHistogram(catalogue, app, front),
      },
      contentRatingsBySystem: {
        appsApple: {
          name: app.contentAdvisoryRating,
          value: (ADVISORY_RANK[app.contentAdvisoryRating] ?? 1) * 100,
          rank: ADVISORY_RANK[app.contentAdvisoryRating] ?? 1,
        },
      },
      platformAttributes: {
        ios: {
          bundleId: app.bundleId,
          artwork: artworkTemplate(app.trackId),
          description: { standard: app.description },
          offers: [offer(catalogue, app.priceTier, front, 'buy')],
          minimumOSVersion: app.minimumOsVersion,
          languageList: app.languageCodes,
          seller: app.developer.name,
          versionHistory: extend.has('versionHistory')
            ? versionHistory(catalogue, app)
            : [
                {
                  versionDisplay: app.version,
                  releaseNotes: app.releaseNotes,
                  releaseDate: app.currentVersionReleaseDate.slice(0, 10),
                },
              ],
          screenshotsByType: {
            iphone_6_5: screenshotUrls(app.trackId, 3).map((url) => ({ url, width: 392, height: 696 })),
          },
        },
      },
    },
    relationships: { developer: developerRelationship(front, app.developer) },
  };
  if (extend.has('privacyDetails')) resource.attributes!.privacyDetails = privacyDetails(catalogue, app);
  if (include.fields !== undefined) {
    const kept = new Set(include.fields);
    resource.attributes = Object.fromEntries(Object.entries(resource.attributes!).filter(([name]) => kept.has(name)));
    if (kept.has('versionHistory'))
      resource.attributes.platformAttributes = { ios: { versionHistory: versionHistory(catalogue, app) } };
  }
  if (include.similar !== undefined) {
    resource.relationships!['customers-also-bought-apps'] = {
      href: `${appHref(front, app)}/customers-also-bought-apps`,
      data: catalogue
        .similar(app, front)
        .slice(0, include.similar)
        .map((other) => appResource(catalogue, other, front)),
    };
  }
  return resource;
}

export function bundleResource(
  catalogue: Catalogue,
  bundle: Bundle,
  front: Storefront,
  include: { apps?: boolean } = {},
): Resource {
  const href = `/v1/catalog/${front.code}/app-bundles/${bundle.id}`;
  return {
    id: String(bundle.id),
    type: 'app-bundles',
    href,
    attributes: {
      name: bundle.name,
      artistName: bundle.developer.name,
      url: `https://apps.apple.com/${front.code}/app-bundle/${encodeURIComponent(bundle.slug)}/id${bundle.id}`,
      artwork: artworkTemplate(bundle.id),
      description: { standard: bundle.description },
      offers: [offer(catalogue, bundle.priceTier, front, 'buy')],
      isFirstParty: false,
      genreDisplayName: bundle.apps[0].genre.name,
      contentRatingsBySystem: { appsApple: { name: '4+', value: 100, rank: 1 } },
    },
    relationships: {
      apps: {
        href: `${href}/apps`,
        data: bundle.apps.map((app) => (include.apps ? appResource(catalogue, app, front) : appIdentifier(front, app))),
      },
      developer: developerRelationship(front, bundle.developer),
    },
  };
}

/** A developer (the same-origin catalogue's `developers/{id}`), its apps in full with `include=apps`. */
export function developerResource(
  catalogue: Catalogue,
  developer: Developer,
  front: Storefront,
  include: { apps?: boolean } = {},
): Resource {
  const href = `/v1/catalog/${front.code}/developers/${developer.id}`;
  const apps = developer.apps
    .filter((app) => soldIn(app.storefronts, front))
    .sort((a, b) => b.ratingCount - a.ratingCount || a.index - b.index);
  return {
    id: String(developer.id),
    type: 'developers',
    href,
    attributes: {
      name: developer.name,
      url: `https://apps.apple.com/${front.code}/developer/${encodeURIComponent(developer.slug)}/id${developer.id}`,
      genreNames: [...new Set(apps.map((app) => app.genre.name))],
    },
    relationships: {
      apps: {
        href: `${href}/apps`,
        data: apps.map((app) => (include.apps ? appResource(catalogue, app, front) : appIdentifier(front, app))),
      },
    },
  };
}

/** A review as the same-origin catalogue's `apps/{id}/reviews` gives it (`type: "user-reviews"`). */
export function userReviewResource(review: Review): Resource {
  return {
    id: String(review.id),
    type: 'user-reviews',
    href: '',
    attributes: {
      date: review.updated,
      review: review.content,
      rating: review.rating,
      isEdited: false,
      userName: review.userName,
      title: review.title,
    },
  };
}
