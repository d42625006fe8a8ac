import { MCP_BALANCE_TOOL_NAME, mcpToolName, PRICED_ROUTES } from '@appcat/routes';
import { buildCatalogueMarkdown } from './catalogue-markdown.js';
import { ERROR_CATALOGUE } from './error-catalogue.js';
import { buildLlmsTxt } from './llms-txt.js';
import { buildSkillMarkdown } from './skill-markdown.js';

const BASE = 'https://appcat.test/v';
const pages = {
  'index.md': buildCatalogueMarkdown(BASE),
  'llms.txt': buildLlmsTxt(BASE),
  'skill.md': buildSkillMarkdown(BASE),
};
const all = Object.entries(pages);

/** Text outside fenced code blocks and code spans, where a bare `<word>` would be swallowed as HTML. */
function prose(markdown: string): string {
  return markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
}

/** Every link target of a markdown page. */
const links = (markdown: string) => [...markdown.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]);

describe('markdown pages', () => {
  it.each(all)('%s names every priced route, the credit routes and the price', (_name, page) => {
    for (const route of PRICED_ROUTES) expect(page).toContain(route.path);
    expect(page).toContain('/api/credits/topup');
    expect(page).toContain('/api/credits/balance');
    expect(page).toContain('USD 0.003');
  });

  it.each(all)('%s points at the MCP server and the browser top-up page', (_name, page) => {
    expect(page).toContain(`${BASE}/mcp`);
    expect(page).toContain(`${BASE}/topup`);
  });

  it.each([
    ['index.md', pages['index.md']],
    ['skill.md', pages['skill.md']],
  ])('%s names every MCP tool', (_name, page) => {
    for (const route of PRICED_ROUTES) expect(page).toContain(`\`${mcpToolName(route)}\``);
    expect(page).toContain(`\`${MCP_BALANCE_TOOL_NAME}\``);
  });

  it.each(all)('%s links and calls only under the configured base URL', (_name, page) => {
    expect(page).toContain(BASE);
    for (const target of links(page)) if (/^https?:/.test(target)) expect(target.startsWith(`${BASE}/`)).toBe(true);
    for (const url of page.match(/https?:\/\/[^\s"'`)]+/g) ?? []) expect(url.startsWith(BASE)).toBe(true);
    expect(page).not.toMatch(/localhost|127\.0\.0\.1/);
  });

  it.each(all)('%s has no bare <placeholder> that markdown would swallow as HTML', (_name, page) => {
    expect(prose(page)).not.toMatch(/<[A-Za-z]/);
  });

  it('index.md lists every parameter of every route, and both payment methods', () => {
    const page = pages['index.md'];
    for (const route of PRICED_ROUTES) {
      const section = page.slice(page.indexOf(`### \`GET ${route.path}\``));
      for (const name of [...route.pathParams, ...route.queryParams]) expect(section).toContain(`| \`${name}\` |`);
    }
    expect(page).toMatch(/x402/);
    expect(page).toContain('Authorization: Bearer <api key>');
    expect(page).toContain('Polygon');
  });

  it('llms.txt follows the convention: H1, blockquote summary, H2 sections of links, Optional last', () => {
    const lines = pages['llms.txt'].split('\n');
    expect(lines[0]).toMatch(/^# \S/);
    expect(lines.find((l) => l.trim() !== '' && !l.startsWith('# '))).toMatch(/^> /);
    const sections = lines.filter((l) => l.startsWith('## '));
    expect(sections.length).toBeGreaterThanOrEqual(2);
    expect(sections.at(-1)).toBe('## Optional');
    expect(lines.filter((l) => l.startsWith('#') && !l.startsWith('# ') && !l.startsWith('## '))).toEqual([]);
    const afterFirstSection = lines.slice(lines.indexOf(sections[0]) + 1);
    for (const line of afterFirstSection)
      if (line !== '' && !line.startsWith('## ')) expect(line).toMatch(/^- \[[^\]]+\]\([^)]+\)(: .+)?$/);
  });

  it('skill.md shows the official x402 client, the key flow, and every error with what to do', () => {
    const page = pages['skill.md'];
    expect(page.startsWith('---\nname: appcat\ndescription: ')).toBe(true);
    expect(page).toContain("import { wrapFetchWithPayment, x402Client } from '@x402/fetch';");
    expect(page).toContain('wrapFetchWithPayment(fetch, client)');
    expect(page).toContain("{ method: 'POST' }");
    expect(page).toContain('topup_required');
    for (const error of ERROR_CATALOGUE) {
      expect(page).toContain(error.exact ? `\`${error.message}\`` : error.message);
      expect(page).toContain(error.action.replace(/\|/g, '\\|'));
    }
  });
});
