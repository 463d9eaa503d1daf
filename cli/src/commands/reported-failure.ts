/** A command that ran but found a problem (a verification): its answer is printed, and it exits 1. */
export class ReportedFailure extends Error {
  override name = 'ReportedFailure';
  readonly result: unknown;
  constructor(
    result: unknown,
    message: string,
  ) {
    super(message);
    this.result = result;
  }
}
