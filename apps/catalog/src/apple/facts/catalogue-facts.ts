import { isRecord } from '../../upstream/upstream-failures.js';

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
export function privacyImplausible(facts: AppFacts): string | undefined {
  const details = facts.privacyDetails;
  if (!details || !Array.isArray(details.privacyTypes)) return 'an app without the privacy details asked for';
  if (details.privacyTypes.some((t) => !isRecord(t) || !PRIVACY_TYPES.has(String(t.identifier))))
    return 'privacy details of a type we do not know';
  return undefined;
}

/**
 * Versions newest first, each `{versionDisplay, releaseNotes, releaseDate, releaseTimestamp}`. Every app
 * on sale has at least its current version, so an empty history is a failure of the source.
 */
export function versionsImplausible(facts: AppFacts): string | undefined {
  const history = facts.versionHistory;
  if (!history) return 'an app without the version history asked for';
  if (history.length === 0) return 'a version history without versions';
  if (!history.every((v) => typeof v.versionDisplay === 'string' && typeof v.releaseDate === 'string'))
    return 'a version history whose entries cannot be read';
  return undefined;
}
