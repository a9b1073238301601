/** A variable the app cannot run without: a missing one stops it at boot, by name. */
export function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: give the queue's URL`);
  return value;
}
