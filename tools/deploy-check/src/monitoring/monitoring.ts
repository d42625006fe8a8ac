import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject } from 'ajv';
import { isJsonObject, type JsonObject } from '../kubernetes/objects.js';
import { repoPath } from '../repo.js';
import type { MetricInventory } from './exported-metrics.js';
import { expressionProblems, expressionUse } from './promql.js';

/** A rule of a PrometheusRule, as k8s/monitoring writes it. */
export interface AlertRule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface DashboardPanel {
  id: number;
  type: string;
  title: string;
  gridPos: { h: number; w: number; x: number; y: number };
  targets?: Array<{ refId: string; expr: string }>;
}

function schemaValidator(file: string) {
  const ajv = new Ajv({ allErrors: true, strictTypes: false });
  return ajv.compile(JSON.parse(readFileSync(repoPath('tools/deploy-check/schemas', file), 'utf8')) as JsonObject);
}

const validators = new Map<string, ReturnType<typeof schemaValidator>>();

/** Problems of `value` against one of schemas/, empty when it is valid. */
export function schemaProblemsOf(value: unknown, file: 'prometheus-rule.json' | 'grafana-dashboard.json'): string[] {
  if (!validators.has(file)) validators.set(file, schemaValidator(file));
  const validate = validators.get(file)!;
  if (validate(value)) return [];
  return (validate.errors ?? []).map((error: ErrorObject) => `${file}: ${error.instancePath || '/'} ${error.message}`);
}

export function rulesOf(rule: JsonObject): AlertRule[] {
  const groups = ((rule.spec as JsonObject | undefined)?.groups ?? []) as Array<{ rules?: AlertRule[] }>;
  return groups.flatMap((group) => group.rules ?? []);
}

/** GitHub's anchor for a markdown heading: lower case, punctuation dropped, spaces as hyphens. */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

/** Every heading anchor of a markdown file of the repository. */
export function anchorsOf(markdownPath: string): Set<string> {
  const text = readFileSync(repoPath(markdownPath), 'utf8');
  return new Set([...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((match) => headingAnchor(match[1])));
}

/**
 * What an operator needs from each alert: a severity, a summary, a description saying what to do, and
 * a runbook (`path#anchor`) that leads to a section of the repository's documents; and expressions that
 * parse and name only metrics and labels the services export.
 */
export function alertProblems(rules: AlertRule[], inventory: MetricInventory): string[] {
  const problems: string[] = [];
  const names = new Set<string>();
  for (const rule of rules) {
    const name = rule.alert ?? rule.record ?? '?';
    problems.push(...expressionProblems(rule.expr, inventory).map((problem) => `${name}: ${problem}`));
    if (!rule.alert) continue;
    if (names.has(rule.alert)) problems.push(`${name}: defined twice`);
    names.add(rule.alert);
    if (!['critical', 'warning', 'info'].includes(rule.labels?.severity ?? ''))
      problems.push(`${name}: labels.severity must be critical, warning or info`);
    for (const annotation of ['summary', 'description', 'runbook'])
      if (!rule.annotations?.[annotation]) problems.push(`${name}: no ${annotation} annotation`);
    const [path, anchor] = (rule.annotations?.runbook ?? '').split('#');
    if (path && (!anchor || !anchorsOf(path).has(anchor)))
      problems.push(`${name}: runbook ${rule.annotations?.runbook} names no section of ${path}`);
  }
  return problems;
}

/** Panels on the 24-column grid without overlapping, ids unique, every query valid against what is exported. */
export function dashboardProblems(dashboard: JsonObject, inventory: MetricInventory): string[] {
  if (!isJsonObject(dashboard) || !Array.isArray(dashboard.panels)) return ['dashboard: no panels'];
  const panels = dashboard.panels as DashboardPanel[];
  const problems: string[] = [];
  const ids = new Set<number>();
  const cells = new Map<string, string>();
  for (const panel of panels) {
    if (ids.has(panel.id)) problems.push(`panel ${panel.id} (${panel.title}): id used twice`);
    ids.add(panel.id);
    const { x, y, w, h } = panel.gridPos;
    if (x + w > 24) problems.push(`panel ${panel.title}: wider than the 24-column grid`);
    for (let row = y; row < y + h; row++)
      for (let column = x; column < Math.min(24, x + w); column++) {
        const other = cells.get(`${row}:${column}`);
        if (other) problems.push(`panel ${panel.title}: overlaps ${other}`);
        cells.set(`${row}:${column}`, panel.title);
      }
    if (panel.type !== 'row' && (panel.targets ?? []).length === 0) problems.push(`panel ${panel.title}: no query`);
    for (const target of panel.targets ?? [])
      problems.push(...expressionProblems(target.expr, inventory).map((problem) => `panel ${panel.title}: ${problem}`));
  }
  return [...new Set(problems)];
}

/** The metrics a set of expressions selects. */
export function metricsSelected(expressions: string[]): Set<string> {
  return new Set(expressions.flatMap((expression) => expressionUse(expression).selectors.map((s) => s.metric)));
}
