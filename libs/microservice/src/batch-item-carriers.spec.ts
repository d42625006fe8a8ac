import { BATCH_ITEM_TRACE_HEADER } from '@appcat/contracts';
import { batchItemCarriers } from './nats-trace.js';

const headerOf = (text: string | undefined) => ({
  get: (name: string) => (name === BATCH_ITEM_TRACE_HEADER ? (text ?? '') : ''),
});
const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('batchItemCarriers: the batch header as a batch handler reads it', () => {
  it('gives each traced item its carrier by index, with the batch size', () => {
    const text = JSON.stringify({ size: 5, traced: { '1': { traceparent }, '4': { traceparent, tracestate: 'a=b' } } });
    expect(batchItemCarriers(headerOf(text))).toEqual({
      size: 5,
      traced: [
        [1, { traceparent }],
        [4, { traceparent, tracestate: 'a=b' }],
      ],
    });
  });

  it('leaves out an index outside the batch or not a whole number, and a carrier with no traceparent', () => {
    const traced = {
      '-1': { traceparent },
      '2': { traceparent },
      '3': { traceparent },
      '1.5': { traceparent },
      '0': {},
    };
    expect(batchItemCarriers(headerOf(JSON.stringify({ size: 3, traced })))).toEqual({
      size: 3,
      traced: [[2, { traceparent }]],
    });
  });

  it('reads no header, and anything that is not one, as no traced item', () => {
    for (const text of [
      undefined,
      '',
      'not json',
      'null',
      '[{"traceparent":"x"}]',
      '{"size":"2","traced":{}}',
      '{"size":2}',
    ])
      expect(batchItemCarriers(headerOf(text))).toBeUndefined();
  });
});
