/*
 * The one mapping from anything thrown to its answer (status, message, headers, decline reason),
 * for each kind of failure the gateway meets: ours, Nest's, Fastify's, Node's, and the unforeseen.
 */
import { BadRequestException, HttpException, NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import { errorCodes } from 'fastify';
import { declineReason, errorAnswer } from './error-answers.js';
import { HttpError, Messages } from './http-error.js';

const nodeError = (code: string) => Object.assign(new Error(`Parse Error: ${code}`), { code });

describe('errorAnswer', () => {
  it('answers our HttpError as it is, headers included', () => {
    const error = new HttpError(402, 'payment already used', { 'payment-required': 'e30=' });
    expect(errorAnswer(error)).toEqual({
      status: 402,
      message: 'payment already used',
      headers: { 'payment-required': 'e30=' },
      reason: 'payment_refused',
    });
    expect(errorAnswer(new HttpError(405, Messages.methodNotAllowed, { allow: 'GET' }))).toEqual({
      status: 405,
      message: 'method not allowed',
      headers: { allow: 'GET' },
      reason: 'http_405',
    });
  });

  it("answers Nest's HttpExceptions with their status and a plain message; an unknown path is 'not found'", () => {
    expect(errorAnswer(new NotFoundException('Cannot GET /nope'))).toEqual({
      status: 404,
      message: 'not found',
      headers: {},
      reason: 'http_404',
    });
    expect(errorAnswer(new BadRequestException('Amount Is Odd'))).toMatchObject({
      status: 400,
      message: 'amount is odd',
      reason: 'invalid_request',
    });
    // A Fastify error Nest wrapped (its mapException): the message Fastify gave, lower-cased.
    expect(errorAnswer(new HttpException('Request body is too large', 413))).toMatchObject({
      status: 413,
      message: 'request body is too large',
    });
    expect(errorAnswer(new PayloadTooLargeException())).toMatchObject({ status: 413, message: 'payload too large' });
  });

  it("answers Fastify's own errors by code: a bad URL is 'malformed url', a 4xx keeps its status", () => {
    expect(errorAnswer(new errorCodes.FST_ERR_BAD_URL('/%E0%A4%A'))).toEqual({
      status: 400,
      message: 'malformed url',
      headers: {},
      reason: 'invalid_request',
    });
    expect(errorAnswer(new errorCodes.FST_ERR_ASYNC_CONSTRAINT())).toMatchObject({
      status: 400,
      message: 'malformed url',
    });
    expect(errorAnswer(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE())).toMatchObject({
      status: 413,
      message: 'request body is too large',
      reason: 'http_413',
    });
    expect(errorAnswer(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE())).toMatchObject({
      status: 415,
      message: 'unsupported media type',
    });
  });

  it("answers Node's HTTP parser refusals by code", () => {
    expect(errorAnswer(nodeError('HPE_HEADER_OVERFLOW'))).toMatchObject({
      status: 431,
      message: 'request headers too large',
    });
    expect(errorAnswer(nodeError('ERR_HTTP_REQUEST_TIMEOUT'))).toMatchObject({
      status: 408,
      message: 'request timeout',
      reason: 'http_408',
    });
    expect(errorAnswer(nodeError('HPE_INVALID_METHOD'))).toMatchObject({ status: 400, message: 'malformed request' });
    // Read from the object, not by class: Node's parser errors can come from another realm.
    expect(errorAnswer({ code: 'HPE_INVALID_CONSTANT', message: 'Expected HTTP/' })).toMatchObject({
      status: 400,
      message: 'malformed request',
    });
  });

  it.each([
    ['a TypeError', new TypeError("Cannot read properties of undefined (reading 'balance')")],
    ['a RangeError', new RangeError('The number not-a-number cannot be converted to a BigInt')],
    ['a string', 'boom'],
    ['undefined', undefined],
    [
      'an error with an unknown code',
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4222'), { code: 'ECONNREFUSED' }),
    ],
    ['a Fastify 5xx', new errorCodes.FST_ERR_HANDLER_TIMEOUT(1000, 'GET /api/apps')],
  ])('answers %s as a 500 that reveals nothing', (_kind, error) => {
    expect(errorAnswer(error)).toEqual({
      status: 500,
      message: 'internal error',
      headers: {},
      reason: 'internal_error',
    });
  });
});

describe('declineReason', () => {
  it.each([
    [400, 'term is required', 'invalid_request'],
    [401, 'api key revoked', 'invalid_key'],
    [402, 'payment_required', 'payment_required'],
    [402, 'topup_required', 'topup_required'],
    [402, 'settlement failed: insufficient_funds', 'payment_refused'],
    [409, 'Idempotency-Key was used for another request', 'http_409'],
    [500, 'internal error', 'dependency_failed'],
    [502, 'upstream store timed out after 5000 ms', 'dependency_failed'],
  ])('%i %s → %s (a stable label, never the message)', (status, message, reason) => {
    expect(declineReason(status, message)).toBe(reason);
  });
});
