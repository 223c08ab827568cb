/** A command line that is not one of the commands: usage goes to stderr, exit 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
