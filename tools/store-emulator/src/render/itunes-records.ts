import type { Catalogue } from '../catalogue/catalogue.js';
import { genreIds, genreNames } from '../catalogue/genres.js';
import type { App, Developer } from '../catalogue/model.js';
import { formatPrice, type Storefront } from '../catalogue/storefronts.js';
import { iconUrl, screenshotUrls } from './artwork.js';

/** Records in the shapes of the iTunes Search/Lookup API ("wrapperType" software and artist). */

export function developerUrl(developer: Developer, front: Storefront): string {
  return `https://apps.apple.com/${front.code}/developer/${encodeURIComponent(developer.slug)}/id${developer.id}?uo=4`;
}

export function appUrl(app: App, front: Storefront): string {
  return `https://apps.apple.com/${front.code}/app/${encodeURIComponent(app.slug)}/id${app.trackId}?uo=4`;
}

export function softwareRecord(catalogue: Catalogue, app: App, front: Storefront): Record<string, unknown> {
  const rating = catalogue.rating(app, front);
  const price = catalogue.price(app.priceTier, front);
  const isGame = app.genre.parent !== undefined;
  return {
    isGameCenterEnabled: isGame,
    features: ['iosUniversal'],
    supportedDevices: [
      'iPhone5s-iPhone5s',
      'iPadAir-iPadAir',
      'iPhone12-iPhone12',
      'iPhone15Pro-iPhone15Pro',
      'iPadPro11M4-iPadPro11M4',
    ],
    advisories: app.contentAdvisoryRating === '17+' ? ['Frequent/Intense Mature/Suggestive Themes'] : [],
    kind: 'software',
    screenshotUrls: screenshotUrls(app.trackId, 3 + (app.index % 3)),
    ipadScreenshotUrls: [],
    appletvScreenshotUrls: [],
    artworkUrl60: iconUrl(app.trackId, 60),
    artworkUrl512: iconUrl(app.trackId, 512),
    artworkUrl100: iconUrl(app.trackId, 100),
    artistViewUrl: developerUrl(app.developer, front),
    minimumOsVersion: app.minimumOsVersion,
    trackCensoredName: app.name,
    languageCodesISO2A: app.languageCodes,
    // Apple sends the size as a string.
    fileSizeBytes: String(app.fileSizeBytes),
    ...(app.developer.sellerUrl ? { sellerUrl: app.developer.sellerUrl } : {}),
    formattedPrice: formatPrice(front, price),
    contentAdvisoryRating: app.contentAdvisoryRating,
    averageUserRatingForCurrentVersion: rating.average,
    userRatingCountForCurrentVersion: rating.count,
    averageUserRating: rating.average,
    trackViewUrl: appUrl(app, front),
    trackContentRating: app.contentAdvisoryRating,
    bundleId: app.bundleId,
    trackId: app.trackId,
    trackName: app.name,
    releaseDate: app.releaseDate,
    genreIds: genreIds(app.genre, app.secondaryGenre),
    primaryGenreName: app.genre.parent ? app.genre.parent.name : app.genre.name,
    primaryGenreId: app.genre.parent ? app.genre.parent.id : app.genre.id,
    isVppDeviceBasedLicensingEnabled: true,
    sellerName: app.developer.name,
    currentVersionReleaseDate: app.currentVersionReleaseDate,
    releaseNotes: app.releaseNotes,
    version: app.version,
    wrapperType: 'software',
    currency: front.currency,
    description: app.description,
    artistId: app.developer.id,
    artistName: app.developer.name,
    genres: genreNames(app.genre, app.secondaryGenre),
    price,
    userRatingCount: rating.count,
  };
}

export function artistRecord(developer: Developer, front: Storefront): Record<string, unknown> {
  const genre = developer.apps[0]?.genre;
  return {
    wrapperType: 'artist',
    artistType: 'Software Artist',
    artistName: developer.name,
    artistLinkUrl: developerUrl(developer, front),
    artistId: developer.id,
    ...(genre
      ? {
          primaryGenreName: genre.parent ? genre.parent.name : genre.name,
          primaryGenreId: genre.parent ? genre.parent.id : genre.id,
        }
      : {}),
  };
}
