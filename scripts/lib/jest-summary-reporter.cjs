// Writes each project's jest totals to tmp/test-results/, so `npm test` can print one closing line
// for the whole workspace ("tests: N passed, N failed") and name what failed beside it: CI logs are
// often read from their tail only.
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
      failures: failuresOf(results, this.rootDir),
    };
    fs.writeFileSync(path.join(dir, `${name}.json`), JSON.stringify(summary));
  }
}

/** Each failed test by file and full name, and each suite that failed to run, with its first message line. */
function failuresOf(results, rootDir) {
  const failures = [];
  for (const file of results.testResults) {
    const where = path.relative(rootDir, file.testFilePath);
    for (const test of file.testResults) {
      if (test.status === 'failed') failures.push(`${where} › ${test.fullName}`);
    }
    if (file.testExecError || (file.failureMessage && file.numFailingTests === 0)) {
      const message = String(file.testExecError?.message ?? file.failureMessage).trim().split('\n')[0];
      failures.push(`${where} (suite did not run: ${message.slice(0, 200)})`);
    }
  }
  return failures;
}

module.exports = JestSummaryReporter;
