import { QueueGroup, Subject } from './subjects.js';

/**
 * The stores the service catalogues. Each is served at its own address by a gateway configured for
 * it, and answered by its own catalog deployment on its own subjects and queue group, so each store's
 * catalog scales alone; payments is one service behind all of them.
 */
export const STORES = ['apple', 'google-play'] as const;
export type StoreId = (typeof STORES)[number];

/** The catalog subjects of one store and the queue group its replicas share. */
export interface CatalogSubjects {
  fetch: typeof Subject.CatalogFetch | typeof Subject.PlayCatalogFetch;
  peek: typeof Subject.CatalogPeek | typeof Subject.PlayCatalogPeek;
  peekBatch: typeof Subject.CatalogPeekBatch | typeof Subject.PlayCatalogPeekBatch;
  queue: string;
}

/** Apple's subjects keep their first names; every other store's carry its id. */
export const CATALOG_SUBJECTS: Readonly<Record<StoreId, CatalogSubjects>> = {
  apple: {
    fetch: Subject.CatalogFetch,
    peek: Subject.CatalogPeek,
    peekBatch: Subject.CatalogPeekBatch,
    queue: QueueGroup.Catalog,
  },
  'google-play': {
    fetch: Subject.PlayCatalogFetch,
    peek: Subject.PlayCatalogPeek,
    peekBatch: Subject.PlayCatalogPeekBatch,
    queue: QueueGroup.PlayCatalog,
  },
};

export function isStoreId(value: unknown): value is StoreId {
  return typeof value === 'string' && (STORES as readonly string[]).includes(value);
}
