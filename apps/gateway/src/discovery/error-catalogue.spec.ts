/*
 * The documented errors (libs/api-docs ERROR_CATALOGUE, shown in /skill.md, /index.md and the
 * OpenAPI responses) against the gateway's one code-to-status switch and its fixed messages: a new
 * error code, a changed status or a reworded message fails here until the documents say the same.
 */
import { ERROR_CATALOGUE } from '@appcat/api-docs';
import { ErrorCode } from '@appcat/contracts';
import { Messages } from '../errors/http-error.js';
import { httpErrorFor } from '../errors/http-status.js';

describe('documented errors', () => {
  it.each(Object.values(ErrorCode))('%s is documented once, with the status the gateway answers', (code) => {
    const entries = ERROR_CATALOGUE.filter((e) => e.codes?.includes(code));
    expect(entries).toHaveLength(1);
    const answer = httpErrorFor(code, 'a message from the service');
    expect(entries[0].status).toBe(answer.status);
    // A fixed message is documented word for word; a passed-through one is described.
    if (answer.message !== 'a message from the service')
      expect(entries[0]).toMatchObject({ exact: true, message: answer.message });
  });

  it.each(Object.values(Messages))('the fixed message "%s" is documented word for word', (message) => {
    expect(ERROR_CATALOGUE.filter((e) => e.exact && e.message === message)).toHaveLength(1);
  });
});
