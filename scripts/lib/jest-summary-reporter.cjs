// Writes each project's jest totals to tmp/test-results/, so `npm test` can print one closing line
// for the whole workspace ("tests: N passed, N failed").
const fs = require('node:fs');
const path = require('node:path');

class JestSummaryReporter {
  /** `options.run` names a second run of a project (its cluster suite), so it does not overwrite the first's totals. */
  constructor(globalConfig, options = {}) {
    this.rootDir = globalConfig.rootDir;
    this.run = options.run || '';
  }

  onRunComplete(_contexts, results) {
    const dir = path.join(__dirname, '..', '..', 'tmp', 'test-results');
    fs.mkdirSync(dir, { recursive: true });
    const project = path.relative(path.join(__dirname, '..', '..'), this.rootDir).replace(/[\\/]/g, '-') || 'root';
    const name = this.run ? `${project}-${this.run}` : project;
    const summary = {
      project: name,
      passed: results.numPassedTests,
      failed: results.numFailedTests + results.numRuntimeErrorTestSuites,
      skipped: results.numPendingTests + results.numTodoTests,
    };
    fs.writeFileSync(path.join(dir, `${name}.json`), JSON.stringify(summary));
  }
}

module.exports = JestSummaryReporter;
