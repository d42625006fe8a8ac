import type { Catalogue } from '../catalogue/catalogue.js';
import { storefront } from '../catalogue/storefronts.js';
import type { DriftSettings } from '../control/drift.js';
import { text, type Route } from '../http.js';
import { moduleScriptJs, moduleScriptPath, notFoundHtml, storePageHtml } from '../render/store-page.js';

const PAGE_PATH = /^\/([a-z]{2})\/(app|app-bundle|developer)(?:\/[^/]+)?\/id(\d{1,19})$/;

/**
 * apps.apple.com: pages of apps, bundles and developers, and the module script they load, which
 * carries the web catalogue token. Only the current build's script exists; an old one is a 404.
 */
export function webRoutes(
  catalogue: Catalogue,
  currentToken: () => string,
  baseUrl: () => string,
  drift: () => DriftSettings,
): Route[] {
  return [
    (request) => {
      if (!request.path.startsWith('/assets/')) return undefined;
      if (request.path !== moduleScriptPath(currentToken()))
        return text(404, notFoundHtml(), 'text/html; charset=utf-8');
      return text(200, moduleScriptJs(currentToken(), drift()), 'text/javascript; charset=utf-8');
    },
    (request) => {
      const match = PAGE_PATH.exec(request.path);
      if (!match) return undefined;
      const [, cc, kind, idText] = match;
      const front = storefront(cc);
      const id = Number(idText);
      const title = !front
        ? undefined
        : kind === 'app'
          ? catalogue.app(id, front)?.name
          : kind === 'app-bundle'
            ? catalogue.bundle(id, front)?.name
            : catalogue.developer(id, front)?.name;
      if (title === undefined || !front) return text(404, notFoundHtml(), 'text/html; charset=utf-8');
      const html = storePageHtml({
        title: `${title} on the App Store`,
        lang: front.locale,
        token: currentToken(),
        canonical: `${baseUrl()}${request.path}`,
        drift: drift(),
      });
      return text(200, html, 'text/html; charset=utf-8');
    },
  ];
}
