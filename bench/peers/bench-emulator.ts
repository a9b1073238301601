/** The emulator process: fauxqs behind the counting proxy. */
export interface BenchEmulator {
  endpoint: string;
  control<T>(path: string, body?: object): Promise<T>;
  stop(): Promise<void>;
}
