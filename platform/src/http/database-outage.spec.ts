import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from './database-outage.ts';

/** What the pg driver rejects with when the server answers an error (fields as PostgreSQL sends them). */
const serverError = (code: string, message: string, routine?: string) => Object.assign(new pg.DatabaseError(message, 0, 'error'), { code, ...(routine ? { routine } : {}) });
const networkError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code });

describe('isDatabaseUnavailable', () => {
  it.each([
    ['57P03 the server starting up', serverError('57P03', 'the database system is starting up', 'ProcessStartupPacket')],
    ['57P03 a smart shutdown under way', serverError('57P03', 'the database system is shutting down', 'ProcessStartupPacket')],
    ['57P03 a standby without hot standby', serverError('57P03', 'the database system is not accepting connections', 'ProcessStartupPacket')],
    ['57P01 the backend terminated by an administrator', serverError('57P01', 'terminating connection due to administrator command', 'ProcessInterrupts')],
    ['53300 too many connections', serverError('53300', 'sorry, too many clients already', 'InitProcess')],
    ['53300 the role connection limit', serverError('53300', 'too many connections for role "cairn"', 'InitializeSessionUserId')],
    ['55000 a database refusing connections', serverError('55000', 'database "cairn" is not currently accepting connections', 'CheckMyDatabase')],
    ['55000 refused, message translated', serverError('55000', 'la base de données « cairn » n’accepte pas actuellement les connexions', 'CheckMyDatabase')],
    ['08006 a connection failure', serverError('08006', 'connection failure')],
    ['ECONNREFUSED', networkError('ECONNREFUSED')],
    ['ECONNRESET', networkError('ECONNRESET')],
    ['a cut connection', new Error('Connection terminated unexpectedly')],
    ['the connect timeout', new Error('Connection terminated due to connection timeout')],
    ['the wait for a pooled connection', new Error('timeout exceeded when trying to connect')],
    ['the query timeout (a black hole)', new Error('Query read timeout')],
    ['every address refused', new AggregateError([networkError('ECONNREFUSED'), networkError('ECONNREFUSED')], '')],
  ])('%s: unavailable', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['55000 met by a statement (currval before nextval)', serverError('55000', 'currval of sequence "s" is not yet defined in this session', 'currval_oid')],
    ['a unique violation', serverError('23505', 'duplicate key value violates unique constraint "x"')],
    ['a statement cut by statement_timeout', serverError('57014', 'canceling statement due to statement timeout')],
    ['a syntax error', serverError('42601', 'syntax error at or near "selct"')],
    ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['not an error at all', 'Connection terminated'],
  ])('%s: not an outage', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
