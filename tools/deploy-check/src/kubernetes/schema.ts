import * as appsV1 from 'kubernetes-models/apps/v1';
import * as autoscalingV2 from 'kubernetes-models/autoscaling/v2';
import * as batchV1 from 'kubernetes-models/batch/v1';
import * as networkingV1 from 'kubernetes-models/networking.k8s.io/v1';
import * as policyV1 from 'kubernetes-models/policy/v1';
import * as coreV1 from 'kubernetes-models/v1';
import { describe, type K8sObject } from './objects.js';

/**
 * Validates objects against the Kubernetes OpenAPI schemas that the kubernetes-models package
 * compiles (types, formats such as quantities, enums, required fields). Those schemas accept unknown
 * fields, which strict-fields.ts catches. An apiVersion this table lacks is an error, never a skip.
 */
const GROUPS: Record<string, Record<string, unknown>> = {
  v1: coreV1,
  'apps/v1': appsV1,
  'autoscaling/v2': autoscalingV2,
  'batch/v1': batchV1,
  'networking.k8s.io/v1': networkingV1,
  'policy/v1': policyV1,
};

interface ModelClass {
  new (data: unknown): { validate(): void };
}

/** Problems with one object, empty when it is valid. */
export function schemaProblems(object: K8sObject): string[] {
  const group = GROUPS[object.apiVersion];
  const model = group?.[object.kind] as ModelClass | undefined;
  if (typeof model !== 'function') return [`${describe(object)}: no schema for ${object.apiVersion} ${object.kind}`];
  try {
    new model(object).validate();
    return [];
  } catch (error) {
    return [`${describe(object)}: ${(error as Error).message}`];
  }
}
