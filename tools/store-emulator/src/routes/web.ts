import type { Catalogue } from '../catalogue/catalogue.js';
import { soldIn, storefront } from '../catalogue/storefronts.js';
import type { DriftSettings } from '../control/drift.js';
import { text, type Route } from '../http.js';
import { appPageData, bundlePageData } from '../render/page-data.js';
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
      if (!front) return text(404, notFoundHtml(), 'text/html; charset=utf-8');
      const app = kind === 'app' ? catalogue.app(id, front) : undefined;
      const bundle = kind === 'app-bundle' ? catalogue.bundle(id, front) : undefined;
      const title =
        app?.name ?? bundle?.name ?? (kind === 'developer' ? catalogue.developer(id, front)?.name : undefined);
      if (title === undefined) return text(404, notFoundHtml(), 'text/html; charset=utf-8');
      const serverData = app
        ? appPageData(catalogue, app, front)
        : bundle
          ? bundlePageData(bundle, front, (member) => soldIn(member.storefronts, front))
          : undefined;
      const html = storePageHtml({
        title: `${title} on the App Store`,
        lang: front.locale,
        token: currentToken(),
        canonical: `${baseUrl()}${request.path}`,
        drift: drift(),
        serverData,
      });
      return text(200, html, 'text/html; charset=utf-8');
    },
  ];
}
