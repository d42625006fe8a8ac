/** A container image reference: [registry[:port]/]repository[:tag][@digest]. */
export interface ImageRef {
  name: string;
  tag?: string;
  digest?: string;
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;
/** A full version: 20.19.5, 16.4, 7.4.1-alpine, 20.19.5-bookworm-slim. */
const EXACT_VERSION = /^v?\d+\.\d+(\.\d+)?([-.][0-9A-Za-z.-]+)?$/;

export function parseImage(reference: string): ImageRef {
  const [withoutDigest, digest, ...extra] = reference.split('@');
  if (extra.length > 0 || !withoutDigest) throw new Error(`malformed image reference ${JSON.stringify(reference)}`);
  const lastSlash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.indexOf(':', lastSlash + 1);
  const name = colon === -1 ? withoutDigest : withoutDigest.slice(0, colon);
  const tag = colon === -1 ? undefined : withoutDigest.slice(colon + 1);
  return { name, ...(tag !== undefined ? { tag } : {}), ...(digest !== undefined ? { digest } : {}) };
}

export function formatImage(image: ImageRef): string {
  return `${image.name}${image.tag !== undefined ? `:${image.tag}` : ''}${image.digest !== undefined ? `@${image.digest}` : ''}`;
}

/**
 * Why a reference is not pinned, or undefined when it is: a sha256 digest, or a tag other than
 * `latest`. With `exactVersion`, a tag must also name a full version (node:20 moves; node:20.19.5 does not).
 */
export function pinProblem(reference: string, options: { exactVersion?: boolean } = {}): string | undefined {
  let image: ImageRef;
  try {
    image = parseImage(reference);
  } catch (error) {
    return (error as Error).message;
  }
  if (image.digest !== undefined) return DIGEST.test(image.digest) ? undefined : `${reference}: malformed digest`;
  if (image.tag === undefined || image.tag === '') return `${reference}: no tag (means latest)`;
  if (image.tag === 'latest') return `${reference}: the latest tag moves`;
  if (options.exactVersion && !EXACT_VERSION.test(image.tag))
    return `${reference}: tag ${image.tag} is not an exact version`;
  return undefined;
}
