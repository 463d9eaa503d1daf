import { DatabaseBusyError } from '@cairn/platform';
import pg from 'pg';
import { EventApplyError } from './apply-events.ts';

const transientCodes = new Set(['40001', '40P01', '55P03', '57014', '57P01', '57P02', '57P03', '53300', '53400']);

/** Errors of the connection or of concurrency, which say nothing about the event. */
export function isTransient(error: unknown): boolean {
  if (error instanceof EventApplyError) return false;
  if (error instanceof DatabaseBusyError) return true;
  if (error instanceof pg.DatabaseError) return error.code !== undefined && (error.code.startsWith('08') || transientCodes.has(error.code));
  const message = error instanceof Error ? error.message : '';
  return /Connection terminated|ECONNRESET|ECONNREFUSED|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(message);
}
