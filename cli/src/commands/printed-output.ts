/** A command's answer that is not one JSON object: text written as it is (an audit table, JSON lines). */
export class PrintedOutput {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}
