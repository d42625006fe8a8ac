import { badResponse, isRecord } from '../../upstream/upstream-failures.js';

/*
 * What the web catalogue tells about an app beyond its details, from one request
 * (`/v1/catalog/{cc}/apps/{id}?extend=privacyDetails,versionHistory`, as app-store-scraper's
 * `privacy` and `versionHistory` ask for them): its privacy label and its version history.
 */

/** The attributes `extend` asks the web catalogue to add (both left out of an app by default). */
export const APP_FACTS_EXTEND = ['privacyDetails', 'versionHistory'] as const;

/** An app's privacy label and version history as the web catalogue gives them, and its user rating. */
export interface AppFacts {
  privacyDetails?: Record<string, unknown>;
  versionHistory?: Record<string, unknown>[];
  userRating?: Record<string, unknown>;
}

/** The platform entries carry the history under; iOS first, as the site shows it. */
const PLATFORMS = ['ios', 'osx', 'appletvos'];

/** The facts of one app resource (`data[0].attributes`). */
export function readAppFacts(attributes: Record<string, unknown>): AppFacts {
  const platforms = isRecord(attributes.platformAttributes) ? attributes.platformAttributes : {};
  const platform = PLATFORMS.map((p) => platforms[p]).find(isRecord);
  const history = platform?.versionHistory;
  return {
    privacyDetails: isRecord(attributes.privacyDetails) ? attributes.privacyDetails : undefined,
    versionHistory: Array.isArray(history) ? history.filter(isRecord) : undefined,
    userRating: isRecord(attributes.userRating) ? attributes.userRating : undefined,
  };
}

const PRIVACY_TYPES = new Set([
  'DATA_USED_TO_TRACK_YOU',
  'DATA_LINKED_TO_YOU',
  'DATA_NOT_LINKED_TO_YOU',
  'DATA_NOT_COLLECTED',
]);

/**
 * The label: `{managePrivacyChoicesUrl, privacyTypes: [{identifier, privacyType, dataCategories, purposes}]}`.
 * An app without a label has no privacy types, which is an answer; a resource without the attribute
 * asked for, or types we do not know, is not.
 */
export function checkPrivacyDetails(facts: AppFacts, host: string): Record<string, unknown> {
  const details = facts.privacyDetails;
  if (!details || !Array.isArray(details.privacyTypes))
    throw badResponse('an app without the privacy details asked for', host);
  const unknown = details.privacyTypes.filter((t) => !isRecord(t) || !PRIVACY_TYPES.has(String(t.identifier)));
  if (unknown.length > 0) throw badResponse('privacy details of a type we do not know', host);
  return details;
}

/**
 * Versions newest first, each `{versionDisplay, releaseNotes, releaseDate, releaseTimestamp}`. Every app
 * on sale has at least its current version, so an empty history is a failure of the source.
 */
export function checkVersionHistory(facts: AppFacts, host: string): Record<string, unknown>[] {
  const history = facts.versionHistory;
  if (!history) throw badResponse('an app without the version history asked for', host);
  if (history.length === 0) throw badResponse('an implausible version history: no versions', host);
  if (!history.every((v) => typeof v.versionDisplay === 'string' && typeof v.releaseDate === 'string'))
    throw badResponse('a version history whose entries cannot be read', host);
  return history;
}
