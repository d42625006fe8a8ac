import type { K8sObject } from './objects.js';

/** A Deployment that follows every rule, for specs to break one rule at a time. */
export function goodDeployment(name = 'gateway', port = 3000): K8sObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      selector: { matchLabels: { 'app.kubernetes.io/name': name } },
      template: {
        metadata: { labels: { 'app.kubernetes.io/name': name } },
        spec: {
          securityContext: { runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } },
          containers: [
            {
              name,
              image: 'appcat:1.0.0',
              ports: [
                { name: 'http', containerPort: port },
                { name: 'ops', containerPort: 9100 },
              ],
              readinessProbe: { httpGet: { path: '/readyz', port: 'http' } },
              livenessProbe: { httpGet: { path: '/healthz', port: 'ops' } },
              resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '1', memory: '128Mi' } },
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                capabilities: { drop: ['ALL'] },
              },
            },
          ],
        },
      },
    },
  };
}
