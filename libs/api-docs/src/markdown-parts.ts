import { formatUsd, PRICE_PER_CALL_MICROS } from '@appcat/contracts';
import type { PricedRoute } from '@appcat/routes';
import { type DocumentedError, ERROR_CATALOGUE, messageMarkdown } from './error-catalogue.js';
import { routeParams, ruleText } from './param-schemas.js';
import { networksOf, PRICE_USD } from './service-facts.js';

/** Pieces the markdown pages share, so the catalogue and the skill guide say the same thing. */

/** A table cell: pipes would end it and new lines would end the row. */
export function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** "`term` (required), `page`, `country`, `lang`" */
export function paramSummary(route: PricedRoute): string {
  const query = routeParams(route).filter((p) => p.in === 'query');
  if (query.length === 0) return 'none';
  return query.map((p) => `\`${p.name}\`${p.required ? ' (required)' : ''}`).join(', ');
}

/** The parameter table of one route. */
export function paramTable(route: PricedRoute): string {
  const rows = routeParams(route).map(
    (p) =>
      `| \`${p.name}\` | ${p.in} | ${p.required ? 'yes' : 'no'} | ${cell(ruleText(p.schema))} | ${cell(p.description)} |`,
  );
  if (rows.length === 0) return 'No parameters.';
  return ['| name | in | required | rule | description |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** "Base (`eip155:8453`), Monad (`eip155:143`), …" */
export function networkList(route: PricedRoute): string {
  return networksOf(route.networks)
    .map((n) => `${n.name} (\`${n.network}\`)`)
    .join(', ');
}

/** Every error answer with what to do about it. */
export function errorTable(errors: readonly DocumentedError[] = ERROR_CATALOGUE): string {
  return [
    '| status | message | when | what to do |',
    '|---|---|---|---|',
    ...errors.map((e) => `| ${e.status} | ${cell(messageMarkdown(e))} | ${cell(e.when)} | ${cell(e.action)} |`),
  ].join('\n');
}

export const PRICE_LINE = `USD ${PRICE_USD} a call (stated as \`${formatUsd(PRICE_PER_CALL_MICROS)}\` USD), the same on every priced route.`;
