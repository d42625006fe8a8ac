import type { Catalogue } from '../catalogue/catalogue.js';
import type { App, Bundle } from '../catalogue/model.js';
import { generateReviews } from '../catalogue/reviews.js';
import type { Storefront } from '../catalogue/storefronts.js';
import { artworkTemplate } from './artwork.js';

/**
 * The serialized server data of apps.apple.com pages (`<script type="application/json"
 * id="serialized-server-data">`): `{data: [{intent, data: {title, lockup, shelfMapping}}]}`, as public
 * scrapers read it in 2026 (the page's lockup and shelves; reviews are objects with `$kind: "Review"`
 * and `id, title, date, dateText, contents, rating, reviewerName`). Shelves the scrapers do not show are modelled:
 * ratings, "You Might Also Like" (`similarItems`) and a bundle's apps (`bundleContents`) as lockups.
 */

/** How many reviews the page's first shelf shows. */
export const PAGE_REVIEWS = 8;

function lockup(app: App, front: Storefront): Record<string, unknown> {
  return {
    $kind: 'Lockup',
    adamId: String(app.trackId),
    title: app.name,
    subtitle: app.genre.name,
    developerName: app.developer.name,
    bundleId: app.bundleId,
    artwork: artworkTemplate(app.trackId),
    url: `https://apps.apple.com/${front.code}/app/${encodeURIComponent(app.slug)}/id${app.trackId}`,
  };
}

function page(intent: Record<string, unknown>, data: Record<string, unknown>): Record<string, unknown> {
  return { data: [{ intent, data }] };
}

export function appPageData(catalogue: Catalogue, app: App, front: Storefront): Record<string, unknown> {
  const rating = catalogue.rating(app, front);
  const reviews = generateReviews(catalogue, app, front).slice(0, PAGE_REVIEWS);
  return page(
    { $kind: 'ProductPageIntent', id: String(app.trackId), storefront: front.code },
    {
      title: app.name,
      lockup: lockup(app, front),
      shelfMapping: {
        productRatings: {
          items: [{ $kind: 'Ratings', ratingAverage: rating.average, totalNumberOfRatings: rating.count }],
        },
        allProductReviews: {
          items: reviews.map((review) => ({
            $kind: 'Review',
            id: String(review.id),
            title: review.title,
            date: review.updated,
            dateText: review.updated.slice(0, 10),
            contents: review.content,
            rating: review.rating,
            reviewerName: review.userName,
          })),
        },
        similarItems: {
          title: 'You Might Also Like',
          items: catalogue.similar(app, front).map((other) => lockup(other, front)),
        },
      },
    },
  );
}

export function bundlePageData(
  bundle: Bundle,
  front: Storefront,
  sold: (app: App) => boolean,
): Record<string, unknown> {
  return page(
    { $kind: 'BundlePageIntent', id: String(bundle.id), storefront: front.code },
    {
      title: bundle.name,
      lockup: { $kind: 'Lockup', adamId: String(bundle.id), title: bundle.name, developerName: bundle.developer.name },
      shelfMapping: { bundleContents: { items: bundle.apps.filter(sold).map((app) => lockup(app, front)) } },
    },
  );
}

/** The data as the page's script carries it: JSON with `<` escaped, so no `</script>` can end it early. */
export function serializedDataScript(data: unknown): string {
  return `<script type="application/json" id="serialized-server-data">${JSON.stringify(data).replace(/</g, '\\u003c')}</script>`;
}
