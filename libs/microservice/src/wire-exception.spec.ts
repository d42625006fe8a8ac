import { ErrorCode } from '@appcat/contracts';
import { type ArgumentsHost, Logger } from '@nestjs/common';
import { lastValueFrom } from 'rxjs';
import { WireException, WireExceptionFilter } from './wire-exception.js';

describe('WireExceptionFilter', () => {
  beforeAll(() => Logger.overrideLogger(false));

  const filter = new WireExceptionFilter();
  const host = {} as ArgumentsHost;

  it('sends a typed failure as it is', async () => {
    await expect(
      lastValueFrom(filter.catch(new WireException(ErrorCode.CreditKeyRevoked, 'key revoked'), host)),
    ).rejects.toEqual({
      code: 'CREDIT_KEY_REVOKED',
      message: 'key revoked',
    });
  });

  it('hides the details of anything else behind INTERNAL', async () => {
    await expect(lastValueFrom(filter.catch(new Error('password=hunter2 at db.ts:12'), host))).rejects.toEqual({
      code: 'INTERNAL',
      message: 'internal error',
    });
  });
});
