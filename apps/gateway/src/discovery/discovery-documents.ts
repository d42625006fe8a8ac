import {
  buildCatalogueMarkdown,
  buildLlmsTxt,
  buildOpenApiDocument,
  buildSkillMarkdown,
  DOCUMENT_PATHS,
} from '@appcat/api-docs';
import { ROUTE_TABLES } from '@appcat/routes';
import { Inject, Injectable } from '@nestjs/common';
import { GATEWAY_CONFIG } from '../config.provider.js';
import type { GatewayConfig } from '../config.js';

/** A document served as it is: its body and content type. */
export interface StaticDocument {
  path: string;
  contentType: string;
  body: string;
}

export const MARKDOWN = 'text/markdown; charset=utf-8';

/**
 * The informational documents, generated once at start-up from the store's route table and the public base
 * URL, and served from memory: what they say is what the gateway registered, at the address callers use.
 */
@Injectable()
export class DiscoveryDocuments {
  readonly documents: readonly StaticDocument[];

  constructor(@Inject(GATEWAY_CONFIG) config: GatewayConfig) {
    const base = config.publicBaseUrl;
    const table = ROUTE_TABLES[config.store];
    this.documents = [
      {
        path: DOCUMENT_PATHS.openapi,
        contentType: 'application/json; charset=utf-8',
        body: JSON.stringify(buildOpenApiDocument(base, table), null, 2),
      },
      { path: DOCUMENT_PATHS.catalogue, contentType: MARKDOWN, body: buildCatalogueMarkdown(base, table) },
      { path: DOCUMENT_PATHS.skill, contentType: MARKDOWN, body: buildSkillMarkdown(base, table) },
      { path: DOCUMENT_PATHS.llms, contentType: 'text/plain; charset=utf-8', body: buildLlmsTxt(base, table) },
    ];
  }
}
