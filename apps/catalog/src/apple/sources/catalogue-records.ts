import { isRecord } from '../../upstream/upstream-failures.js';
import type { ItunesRecord } from '../itunes-api.js';
import type { AmpResource } from '../web-catalogue.js';

const attributesOf = (resource: AmpResource) => (isRecord(resource.attributes) ? resource.attributes : {});

function ios(attributes: Record<string, unknown>): Record<string, unknown> {
  const platforms = isRecord(attributes.platformAttributes) ? attributes.platformAttributes : {};
  return isRecord(platforms.ios) ? platforms.ios : {};
}

function artwork(attributes: Record<string, unknown>, size: number): string | undefined {
  const template = isRecord(ios(attributes).artwork) ? ios(attributes).artwork : attributes.artwork;
  const url = isRecord(template) ? template.url : undefined;
  return typeof url === 'string'
    ? url.replace('{w}', String(size)).replace('{h}', String(size)).replace('{c}', 'bb').replace('{f}', 'jpg')
    : undefined;
}

/** Keys whose value is undefined are left out, as Lookup leaves out what it does not know. */
function defined(record: Record<string, unknown>): ItunesRecord {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));
}

/**
 * A catalogue `apps` resource as the iTunes software record the app routes answer, so a route keeps
 * its shape whichever source answered: the fields the catalogue carries, under Lookup's names; the
 * ones it does not (genre ids, file size, supported devices…) are absent.
 */
export function softwareRecordOf(resource: AmpResource, artistId?: string): ItunesRecord {
  const a = attributesOf(resource);
  const platform = ios(a);
  const offer = Array.isArray(platform.offers) && isRecord(platform.offers[0]) ? platform.offers[0] : {};
  const rating = isRecord(a.userRating) ? a.userRating : {};
  const history =
    Array.isArray(platform.versionHistory) && isRecord(platform.versionHistory[0]) ? platform.versionHistory[0] : {};
  const description = isRecord(platform.description) ? platform.description.standard : undefined;
  const developer =
    isRecord(resource.relationships) && isRecord(resource.relationships.developer)
      ? resource.relationships.developer.data
      : undefined;
  const developerId = Array.isArray(developer) && isRecord(developer[0]) ? developer[0].id : artistId;
  return defined({
    wrapperType: 'software',
    kind: 'software',
    trackId: Number(resource.id),
    trackName: a.name,
    bundleId: platform.bundleId,
    artistId: developerId === undefined ? undefined : Number(developerId),
    artistName: a.artistName,
    sellerName: platform.seller ?? a.artistName,
    trackViewUrl: a.url,
    artworkUrl100: artwork(a, 100),
    artworkUrl512: artwork(a, 512),
    description,
    price: offer.price,
    formattedPrice: offer.priceFormatted,
    currency: offer.currencyCode,
    averageUserRating: rating.value,
    userRatingCount: rating.ratingCount,
    primaryGenreName: a.genreDisplayName,
    version: history.versionDisplay,
    releaseNotes: history.releaseNotes,
    currentVersionReleaseDate: history.releaseDate,
    releaseDate: a.releaseDate,
    minimumOsVersion: platform.minimumOSVersion,
    languageCodesISO2A: platform.languageList,
    contentAdvisoryRating:
      isRecord(a.contentRatingsBySystem) && isRecord(a.contentRatingsBySystem.appsApple)
        ? a.contentRatingsBySystem.appsApple.name
        : undefined,
  });
}

/** A catalogue `developers` resource as Lookup's artist record. */
export function artistRecordOf(resource: AmpResource): ItunesRecord {
  const a = attributesOf(resource);
  return defined({
    wrapperType: 'artist',
    artistType: 'Software Artist',
    artistName: a.name,
    artistLinkUrl: a.url,
    artistId: Number(resource.id),
  });
}
